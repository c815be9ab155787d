// The store: the database and one object a table, plus the transaction helper every
// mutating request runs in.
import { openDatabase, type DB } from './db';
import { ServerTable } from './servers';
import { PeerTable } from './peers';
import { WebhookTable } from './webhooks';
import { SmtpTable } from './smtp';
import { CredentialTable } from './credentials';
import { OutboxTable } from './outbox';
import { MailOutboxTable } from './mail-outbox';
import { UsageTable } from './usage';
import { JobStateTable } from './job-state';
import { RegTokenTable } from './regtokens';
import { DeviceTable } from './devices';
import { ForwardTable } from './forwards';
import { backfillIpv6 } from './ipv6-backfill';
import { AuditTable } from './audit';
import { TotpTable } from './totp';
import { ShareTable } from './shares';
import { KernelRepairTable } from './kernel-repairs';
import { SiteLinkTable } from './site-links';
import { SessionTable } from './sessions';
import { PasskeyTable } from './passkeys';
import { HaTable } from './ha';

export class Store {
  readonly servers: ServerTable;
  readonly peers: PeerTable;
  readonly webhooks: WebhookTable;
  readonly smtp: SmtpTable;
  readonly credentials: CredentialTable;
  readonly outbox: OutboxTable;
  readonly mailOutbox: MailOutboxTable;
  readonly usage: UsageTable;
  readonly jobState: JobStateTable;
  readonly regTokens: RegTokenTable;
  readonly devices: DeviceTable;
  readonly forwards: ForwardTable;
  readonly audit: AuditTable;
  readonly totp: TotpTable;
  readonly shares: ShareTable;
  readonly kernelRepairs: KernelRepairTable;
  readonly siteLinks: SiteLinkTable;
  readonly ha: HaTable;

  private sessionsMade?: SessionTable;
  private passkeysMade?: PasskeyTable;
  private readonly totalChanges;
  /** Rows changed by telemetryTx, left out of revision(). */
  private telemetryChanges = 0;

  constructor(readonly db: DB) {
    this.totalChanges = db.prepare('SELECT total_changes()').pluck();
    this.servers = new ServerTable(db);
    this.peers = new PeerTable(db);
    this.webhooks = new WebhookTable(db);
    this.smtp = new SmtpTable(db);
    this.credentials = new CredentialTable(db);
    this.outbox = new OutboxTable(db);
    this.mailOutbox = new MailOutboxTable(db);
    this.usage = new UsageTable(db);
    this.jobState = new JobStateTable(db);
    this.regTokens = new RegTokenTable(db);
    this.devices = new DeviceTable(db);
    this.forwards = new ForwardTable(db);
    this.audit = new AuditTable(db);
    this.totp = new TotpTable(db);
    this.shares = new ShareTable(db);
    this.kernelRepairs = new KernelRepairTable(db);
    this.siteLinks = new SiteLinkTable(db);
    this.ha = new HaTable(db);
  }

  /** The page sessions: made when the first is looked at (a daemon no page signs in to never prepares them). */
  get sessions(): SessionTable { return (this.sessionsMade ??= new SessionTable(this)); }

  /** The passkeys: made when they are first looked at, as the sessions are. */
  get passkeys(): PasskeyTable { return (this.passkeysMade ??= new PasskeyTable(this)); }

  static open(dataDir: string): Store {
    const db = openDatabase(dataDir);
    backfillIpv6(db);
    return new Store(db);
  }

  /** Runs fn in one IMMEDIATE transaction: all of it commits, or none of it. */
  tx<T>(fn: () => T): T { return this.db.transaction(fn).immediate(); }

  /** Runs fn in one read transaction: everything it reads is of one moment. */
  read<T>(fn: () => T): T { return this.db.transaction(fn).deferred(); }

  /**
   * A number that changes whenever this connection changes a row, except through
   * telemetryTx. Caches of data read from the store compare it to know they are current
   * (SQLite's total_changes() counts every INSERT, UPDATE and DELETE, committed or not).
   */
  revision(): number { return (this.totalChanges.get() as number) - this.telemetryChanges; }

  /** tx for writes no cached view depends on (heartbeat reports): they leave revision() alone. */
  telemetryTx<T>(fn: () => T): T {
    const before = this.totalChanges.get() as number;
    try {
      return this.tx(fn);
    } finally {
      this.telemetryChanges += (this.totalChanges.get() as number) - before;
    }
  }

  close(): void { this.db.close(); }
}
