// A real SMTP server on 127.0.0.1 (Debian's python3-aiosmtpd) that requires AUTH with the
// given login. Each message it accepts is parsed by Python's email package and handed to
// the test as JSON: envelope, headers, and every part with its decoded bytes.
import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';
import { PYTHON3 } from './root';

export interface MailPart { contentType: string; filename: string | null; cid: string | null; disposition: string | null; base64: string }
export interface ReceivedMail { mailFrom: string; rcptTos: string[]; subject: string; from: string; to: string; authenticated: boolean; parts: MailPart[] }

const SERVER = String.raw`
import sys, json, socket, base64, email
from email import policy
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword
user, password = sys.argv[1].encode(), sys.argv[2].encode()
def authenticator(server, session, envelope, mechanism, data):
    ok = isinstance(data, LoginPassword) and data.login == user and data.password == password
    return AuthResult(success=ok, handled=False)
class Handler:
    async def handle_DATA(self, server, session, envelope):
        msg = email.message_from_bytes(envelope.content, policy=policy.default)
        parts = []
        for part in msg.walk():
            if part.is_multipart():
                continue
            parts.append({"contentType": part.get_content_type(), "filename": part.get_filename(),
                          "cid": part.get("Content-ID"), "disposition": part.get_content_disposition(),
                          "base64": base64.b64encode(part.get_payload(decode=True) or b"").decode()})
        print(json.dumps({"mailFrom": envelope.mail_from, "rcptTos": envelope.rcpt_tos, "subject": str(msg["subject"]),
                          "from": str(msg["from"]), "to": str(msg["to"]), "authenticated": bool(session.authenticated),
                          "parts": parts}), flush=True)
        return "250 OK"
s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()
controller = Controller(Handler(), hostname="127.0.0.1", port=port, authenticator=authenticator,
                        auth_required=True, auth_require_tls=False)
controller.start()
print(json.dumps({"ready": port}), flush=True)
sys.stdin.read()
controller.stop()
`;

export class SmtpServer {
  readonly mails: ReceivedMail[] = [];
  port = 0;
  private constructor(private readonly child: ChildProcess) {}

  static start(user: string, password: string): Promise<SmtpServer> {
    const child = spawn(PYTHON3, ['-c', SERVER, user, password], { stdio: ['pipe', 'pipe', 'pipe'] });
    const server = new SmtpServer(child);
    let stderr = '';
    child.stderr!.on('data', (c: Buffer) => { stderr += c.toString(); });
    return new Promise((resolve, reject) => {
      child.once('exit', (code) => reject(new Error(`SMTP server exited (${code}): ${stderr}`)));
      readline.createInterface({ input: child.stdout! }).on('line', (line) => {
        const msg = JSON.parse(line) as { ready?: number } & ReceivedMail;
        if (msg.ready) { server.port = msg.ready; resolve(server); } else server.mails.push(msg);
      });
    });
  }

  async waitFor(n: number, timeoutMs = 10_000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.mails.length < n) {
      if (Date.now() > deadline) throw new Error(`SMTP server got ${this.mails.length} mails, expected ${n}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    return this.mails;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once('exit', () => resolve());
      this.child.stdin!.end();
      setTimeout(() => this.child.kill('SIGKILL'), 3000).unref();
    });
  }
}
