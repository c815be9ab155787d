// Mail through nodemailer with the stored SMTP settings: the transport, the messages (a
// peer's configuration, notices, a test) and one send that turns any SMTP failure into a
// MailError carrying the server's words. The server's name is resolved here, through the
// address guard, and nodemailer connects to that checked address (TLS still verifies the name).
import { tunnelFileName } from '../views/conf-name';
import net from 'node:net';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import type Mail from 'nodemailer/lib/mailer';
import type { SmtpRecord } from '../store/smtp';
import { canonicalHost } from '../net/address-guard';
import { resolveAllowed, systemResolve, type Resolve } from '../net/guarded-lookup';
import { guardFacts } from '../net/own-listeners';

export class MailError extends Error {}

export const QR_CID = 'wgcp-qrcode';

/**
 * useTLS: implicit TLS on port 465, STARTTLS required on any other port; off: plain SMTP.
 * `address`: the checked address to connect to; certificates are still checked against the name.
 */
export function transportOptions(s: SmtpRecord, address: string = s.server): SMTPTransport.Options {
  const implicit = s.useTLS && s.port === 465;
  const name = canonicalHost(s.server);
  return {
    host: address,
    servername: net.isIP(name) ? undefined : name,
    port: s.port,
    secure: implicit,
    requireTLS: s.useTLS && !implicit,
    ignoreTLS: !s.useTLS,
    auth: s.useAuth ? { user: s.username, pass: s.password } : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  };
}

export interface Sent { messageId: string; accepted: string[] }

/** The first address of the SMTP server that the guard allows; any refusal or DNS failure is a MailError. */
async function checkedAddress(s: SmtpRecord, resolve: Resolve): Promise<string> {
  try {
    const [first] = await resolveAllowed(s.server, s.port, guardFacts(), resolve);
    if (!first) throw Object.assign(new Error(`${s.server} has no address`), { code: 'ENOTFOUND' });
    return first.address;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    throw new MailError(e.code ? `${e.code}: ${e.message}` : e.message);
  }
}

export async function sendMail(s: SmtpRecord, message: Mail.Options, resolve: Resolve = systemResolve): Promise<Sent> {
  if (!s.server) throw new MailError('SMTP server is not set');
  if (!s.fromEmail) throw new MailError('SMTP fromEmail is not set');
  // Loaded at the first mail: nodemailer is about 12 MB of RSS a daemon that sends none never pays.
  const nodemailer = require('nodemailer') as typeof import('nodemailer');
  const transport = nodemailer.createTransport(transportOptions(s, await checkedAddress(s, resolve)));
  try {
    const info = await transport.sendMail({ ...message, from: { name: s.fromName || 'wgcp', address: s.fromEmail } });
    return { messageId: info.messageId, accepted: (info.accepted as (string | { address: string })[]).map((a) => (typeof a === 'string' ? a : a.address)) };
  } catch (err) {
    const e = err as Error & { response?: string };
    throw new MailError(e.response ? `${e.message}` : e.message);
  } finally {
    transport.close();
  }
}

export interface PeerForMail { id: number; name: string; ip: string }

export function peerConfigMessage(peer: PeerForMail, to: string, conf: string, qrPng: Buffer): Mail.Options {
  const label = peer.name || `peer ${peer.id}`;
  return {
    to,
    subject: `Your WireGuard configuration: ${label}`,
    text: `Your WireGuard configuration for ${label} (${peer.ip}) is attached as ${tunnelFileName(peer)}.\n`
      + 'Import it in the WireGuard app, or scan the QR code in this message.\n',
    html: `<p>Your WireGuard configuration for <b>${escapeHtml(label)}</b> (${escapeHtml(peer.ip)}) is attached.</p>`
      + `<p>Scan this QR code with the WireGuard app:</p><p><img src="cid:${QR_CID}" alt="WireGuard QR code"></p>`,
    attachments: [
      { filename: tunnelFileName(peer), content: conf, contentType: 'text/plain; charset=utf-8' },
      { filename: 'wireguard-qrcode.png', content: qrPng, contentType: 'image/png', cid: QR_CID, contentDisposition: 'inline' },
    ],
  };
}

export type NoticeKind = 'peerRestricted' | 'peerExpired';

/** `change`: the event's own word for why (`schedule closed` restricts for a schedule, not the data limit). */
export function noticeMessage(kind: NoticeKind, peer: PeerForMail & { dataLimitGB?: number; dataLimitGiB?: number }, to: string, change?: unknown): Mail.Options {
  const label = peer.name || `peer ${peer.id}`;
  if (kind === 'peerRestricted' && change === 'schedule closed') {
    return {
      to,
      subject: `WireGuard access paused: ${label} is outside its access schedule`,
      text: `${label} (${peer.ip}) is outside the hours its access schedule allows and is disabled until its next window opens.\n`,
    };
  }
  if (kind === 'peerRestricted') {
    return {
      to,
      subject: `WireGuard access paused: ${label} reached its data limit`,
      text: `${label} (${peer.ip}) has used its monthly data limit of ${peer.dataLimitGiB ?? peer.dataLimitGB ?? 0} GB and is disabled `
        + 'until the usage resets at the start of next month, or until an administrator raises the limit.\n',
    };
  }
  return {
    to,
    subject: `WireGuard access expired: ${label}`,
    text: `${label} (${peer.ip}) has expired and was removed. Ask your administrator for a new configuration if you still need access.\n`,
  };
}

export function testMessage(to: string): Mail.Options {
  return { to, subject: 'wgcp SMTP test', text: 'This is a test message from wgcp. Your SMTP settings work.\n' };
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]!));
}
