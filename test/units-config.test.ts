import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../src/config';

const t = suite('configuration from the environment');

t('uses the embedded defaults when nothing is set', () => {
  const c = loadConfig({});
  assert.is(c.dataDir, '/var/lib/wgcp');
  assert.equal(c.listen, { host: '127.0.0.1', port: 8080 });
  assert.is(c.deviceListen, null);
  assert.is(c.kernel, 'auto');
  assert.is(c.usageIntervalS, 60);
  assert.is(c.heartbeatCache, 10000);
  assert.is(c.logLevel, 'info');
  assert.is(c.apiKey, null);
});

t('reads every variable', () => {
  const c = loadConfig({
    WGCP_DATA_DIR: '/tmp/x', WGCP_LISTEN: '[::1]:9000', WGCP_DEVICE_LISTEN: '0.0.0.0:8443', WGCP_TLS_CERT: '/c.pem', WGCP_TLS_KEY: '/k.pem',
    WGCP_API_KEY: 'a-long-enough-api-key', SERVER_SALT: 'a-long-enough-salt', WGCP_KERNEL: 'off', WGCP_USAGE_INTERVAL_S: '5', WGCP_LOG_LEVEL: 'debug',
    WGCP_HEARTBEAT_CACHE: '0',
  });
  assert.equal(c.listen, { host: '::1', port: 9000 });
  assert.equal(c.deviceListen, { host: '0.0.0.0', port: 8443 });
  assert.is(c.tlsCert, '/c.pem');
  assert.is(c.serverSalt, 'a-long-enough-salt');
  assert.is(c.kernel, 'off');
  assert.is(c.usageIntervalS, 5);
  assert.is(c.heartbeatCache, 0);
});

t('refuses bad values with a message naming the variable', () => {
  const cases: [Record<string, string>, string][] = [
    [{ WGCP_LISTEN: 'localhost' }, 'WGCP_LISTEN'], [{ WGCP_LISTEN: '1.2.3.4:99999' }, 'WGCP_LISTEN'],
    [{ WGCP_DEVICE_LISTEN: ':x' }, 'WGCP_DEVICE_LISTEN'], [{ WGCP_KERNEL: 'yes' }, 'WGCP_KERNEL'],
    [{ WGCP_USAGE_INTERVAL_S: '0' }, 'WGCP_USAGE_INTERVAL_S'], [{ WGCP_USAGE_INTERVAL_S: '1.5' }, 'WGCP_USAGE_INTERVAL_S'],
    [{ WGCP_LOG_LEVEL: 'loud' }, 'WGCP_LOG_LEVEL'], [{ WGCP_TLS_CERT: '/c.pem' }, 'WGCP_TLS_KEY'],
    [{ WGCP_HEARTBEAT_CACHE: '-1' }, 'WGCP_HEARTBEAT_CACHE'], [{ WGCP_HEARTBEAT_CACHE: 'lots' }, 'WGCP_HEARTBEAT_CACHE'],
    [{ WGCP_API_KEY: 'short' }, 'WGCP_API_KEY'], [{ SERVER_SALT: 'short' }, 'SERVER_SALT'],
  ];
  for (const [env, name] of cases) {
    assert.throws(() => loadConfig(env), (e: Error) => e instanceof ConfigError && e.message.includes(name), JSON.stringify(env));
  }
});

t.run();
