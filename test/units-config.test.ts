import fs from 'node:fs';
import path from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../src/config';

const t = suite('configuration from the environment');

// Every variable config.ts reads, as its source names them: a variable added there and not
// here fails the test below.
const CONFIG_SOURCE = fs.readFileSync(path.join(__dirname, '../../src/config.ts'), 'utf8');
// Single sign-on's settings are read by src/access/oidc-settings.ts, through `get('…')`.
const OIDC_SOURCE = fs.readFileSync(path.join(__dirname, '../../src/access/oidc-settings.ts'), 'utf8');
// The standby pair's settings are read by src/ha-config.ts, through `nonEmpty(env, '…')` and `whole(env, '…', …)`.
const HA_SOURCE = fs.readFileSync(path.join(__dirname, '../../src/ha-config.ts'), 'utf8');
const readVariables = (): string[] => [...new Set([...CONFIG_SOURCE.matchAll(/nonEmpty\(env, '([A-Z0-9_]+)'\)/g), ...OIDC_SOURCE.matchAll(/get\('([A-Z0-9_]+)'\)/g),
  ...HA_SOURCE.matchAll(/(?:nonEmpty|whole)\(env, '([A-Z0-9_]+)'/g)].map((m) => m[1]))].sort();
const SECRET_FILE = path.join(fs.mkdtempSync('/tmp/wgcp-config-'), 'oidc-secret');
fs.writeFileSync(SECRET_FILE, 'the-client-secret\n', { mode: 0o600 });

t('uses the embedded defaults when nothing is set, for every setting', () => {
  assert.equal(loadConfig({}), {
    dataDir: '/var/lib/wgcp', listen: { host: '127.0.0.1', port: 8080 }, deviceListen: null, metricsListen: null,
    tlsCert: null, tlsKey: null, apiKey: null, serverSalt: null, kernel: 'auto', usageIntervalS: 60,
    heartbeatCache: 10000, heartbeatFlushS: 300, wanInterfaces: null, logLevel: 'info', auditDays: 400, kernelAuditS: 900, deviceRate: 'auto',
    provisionRetryWindowS: 0, clockConfirmS: 3600, publicUrl: null, oidc: null, pageKeySignIn: true, ha: null,
  });
});

t('reads every variable, each into its own setting', () => {
  const env = {
    WGCP_DATA_DIR: '/tmp/x', WGCP_LISTEN: '[::1]:9000', WGCP_DEVICE_LISTEN: '0.0.0.0:8443', WGCP_METRICS_LISTEN: '127.0.0.2:9100',
    WGCP_TLS_CERT: '/c.pem', WGCP_TLS_KEY: '/k.pem', WGCP_API_KEY: 'a-long-enough-api-key', SERVER_SALT: 'a-long-enough-salt',
    WGCP_KERNEL: 'off', WGCP_USAGE_INTERVAL_S: '5', WGCP_HEARTBEAT_CACHE: '0', WGCP_HEARTBEAT_FLUSH_S: '7',
    WGCP_WAN_INTERFACES: 'eth0, wan.2', WGCP_LOG_LEVEL: 'debug', WGCP_AUDIT_DAYS: '30', WGCP_KERNEL_AUDIT_S: '120', WGCP_DEVICE_RATE: '40',
    WGCP_PROVISION_RETRY_WINDOW: '600', WGCP_CLOCK_CONFIRM_S: '600', WGCP_PUBLIC_URL: 'https://vpn.example.com/wgcp/',
    WGCP_OIDC_ISSUER: 'https://id.example.com/realms/office', WGCP_OIDC_CLIENT_ID: 'wgcp', WGCP_OIDC_CLIENT_SECRET_FILE: SECRET_FILE,
    WGCP_OIDC_SCOPES: 'email groups', WGCP_OIDC_ROLES: 'admin=groups:a;viewer=email_domain:example.com', WGCP_PAGE_KEY_SIGN_IN: 'off',
    WGCP_HA_PARTNER: 'http://192.0.2.2:7480', WGCP_HA_LISTEN: '192.0.2.1:7480', WGCP_HA_KEY_FILE: '/etc/wgcp/ha-key',
    WGCP_HA_VIRTUAL_ADDRESS: '192.0.2.100', WGCP_HA_ACK_WAIT_MS: '500', WGCP_HA_JOURNAL_KEEP: '2000', WGCP_HA_USAGE_EVERY_S: '300',
  };
  assert.equal(Object.keys(env).sort(), readVariables(), 'the test sets every variable config.ts reads');
  // The whole object: a setting the test does not name, or one left at its default, fails.
  assert.equal(loadConfig(env), {
    dataDir: '/tmp/x', listen: { host: '::1', port: 9000 }, deviceListen: { host: '0.0.0.0', port: 8443 },
    metricsListen: { host: '127.0.0.2', port: 9100 }, tlsCert: '/c.pem', tlsKey: '/k.pem', apiKey: 'a-long-enough-api-key',
    serverSalt: 'a-long-enough-salt', kernel: 'off', usageIntervalS: 5, heartbeatCache: 0, heartbeatFlushS: 7,
    wanInterfaces: ['eth0', 'wan.2'], logLevel: 'debug', auditDays: 30, kernelAuditS: 120, deviceRate: 40,
    provisionRetryWindowS: 600, clockConfirmS: 600, publicUrl: 'https://vpn.example.com/wgcp',
    oidc: {
      issuer: 'https://id.example.com/realms/office', clientId: 'wgcp', clientSecret: 'the-client-secret',
      redirectUri: 'https://vpn.example.com/wgcp/api/oidc/callback', postLogoutRedirectUri: 'https://vpn.example.com/wgcp/', scopes: 'openid email groups',
      roles: [{ role: 'admin', claim: 'groups', value: 'a' }, { role: 'viewer', claim: 'email_domain', value: 'example.com' }],
    },
    pageKeySignIn: false,
    ha: {
      partner: new URL('http://192.0.2.2:7480'), listen: { host: '192.0.2.1', port: 7480 }, keyFile: '/etc/wgcp/ha-key',
      virtualAddress: '192.0.2.100', ackWaitMs: 500, journalKeep: 2000, usageEveryS: 300,
    },
  });
});

t('WGCP_WAN_INTERFACES=auto follows the default routes (null)', () => {
  assert.is(loadConfig({ WGCP_WAN_INTERFACES: 'auto' }).wanInterfaces, null);
});

t('refuses bad values with a message naming the variable', () => {
  const cases: [Record<string, string>, string][] = [
    [{ WGCP_LISTEN: 'localhost' }, 'WGCP_LISTEN'], [{ WGCP_LISTEN: '1.2.3.4:99999' }, 'WGCP_LISTEN'],
    [{ WGCP_DEVICE_LISTEN: ':x' }, 'WGCP_DEVICE_LISTEN'], [{ WGCP_KERNEL: 'yes' }, 'WGCP_KERNEL'],
    [{ WGCP_KERNEL_AUDIT_S: '0' }, 'WGCP_KERNEL_AUDIT_S'], [{ WGCP_USAGE_INTERVAL_S: '0' }, 'WGCP_USAGE_INTERVAL_S'], [{ WGCP_USAGE_INTERVAL_S: '1.5' }, 'WGCP_USAGE_INTERVAL_S'],
    [{ WGCP_LOG_LEVEL: 'loud' }, 'WGCP_LOG_LEVEL'], [{ WGCP_TLS_CERT: '/c.pem' }, 'WGCP_TLS_KEY'],
    [{ WGCP_HEARTBEAT_CACHE: '-1' }, 'WGCP_HEARTBEAT_CACHE'], [{ WGCP_HEARTBEAT_CACHE: 'lots' }, 'WGCP_HEARTBEAT_CACHE'],
    [{ WGCP_API_KEY: 'short' }, 'WGCP_API_KEY'], [{ SERVER_SALT: 'short' }, 'SERVER_SALT'],
    [{ WGCP_METRICS_LISTEN: 'nowhere' }, 'WGCP_METRICS_LISTEN'], [{ WGCP_HEARTBEAT_FLUSH_S: '0' }, 'WGCP_HEARTBEAT_FLUSH_S'],
    [{ WGCP_WAN_INTERFACES: 'eth0,bad name' }, 'WGCP_WAN_INTERFACES'], [{ WGCP_TLS_KEY: '/k.pem' }, 'WGCP_TLS_CERT'],
    [{ WGCP_PROVISION_RETRY_WINDOW: '10m' }, 'WGCP_PROVISION_RETRY_WINDOW'], [{ WGCP_PROVISION_RETRY_WINDOW: '3601' }, 'WGCP_PROVISION_RETRY_WINDOW'],
    [{ WGCP_CLOCK_CONFIRM_S: '0' }, 'WGCP_CLOCK_CONFIRM_S'], [{ WGCP_CLOCK_CONFIRM_S: '1h' }, 'WGCP_CLOCK_CONFIRM_S'],
    [{ WGCP_HA_PARTNER: 'partner' }, 'WGCP_HA_PARTNER'], [{ WGCP_HA_PARTNER: 'https://192.0.2.2:7480' }, 'WGCP_HA_PARTNER'],
    [{ WGCP_HA_PARTNER: 'http://192.0.2.2:7480', WGCP_HA_KEY_FILE: '/k' }, 'WGCP_HA_LISTEN'],
    [{ WGCP_HA_PARTNER: 'http://192.0.2.2:7480', WGCP_HA_LISTEN: '0.0.0.0:7480' }, 'WGCP_HA_KEY_FILE'],
    [{ WGCP_HA_PARTNER: 'http://192.0.2.2:7480', WGCP_HA_LISTEN: '0.0.0.0:7480', WGCP_HA_KEY_FILE: '/k', WGCP_HA_ACK_WAIT_MS: '2s' }, 'WGCP_HA_ACK_WAIT_MS'],
  ];
  for (const [env, name] of cases) {
    assert.throws(() => loadConfig(env), (e: Error) => e instanceof ConfigError && e.message.includes(name), JSON.stringify(env));
  }
});

t.run();
