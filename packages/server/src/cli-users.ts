import { CreateUser, ROLES, Role, type UserAccount } from '@adam/contracts';
import type { Core } from './core.js';
import type { Config } from './config.js';
import { AppError } from './lib/errors.js';
import { AuditService } from './services/audit.service.js';
import { UserAdminService } from './services/user-admin.service.js';
import { AuditRepository } from './store/audit.repository.js';
import { UserRepository } from './store/user.repository.js';

/** Who the CLI's changes are by, in log lines and the audit trail. */
const CLI = { email: 'cli' };
const LOGIN = 'POST /auth/login';

/** A command line that cannot be run as written: printed with the usage, exit 2. */
export class UsageError extends Error {}

/** What `adam users` / `adam user ...` asked for, checked before the data directory is opened. */
export type UserCommand =
  | { kind: 'list' }
  | { kind: 'create'; email: string; role: Role; name: string }
  | { kind: 'reset-password'; email: string }
  | { kind: 'set-role'; email: string; role: Role }
  | { kind: 'disable' | 'enable'; email: string };

const ROLE_LIST = ROLES.join('|');

function parseRole(value: string | undefined, where: string): Role {
  const role = Role.safeParse(value);
  if (!role.success) {
    throw new UsageError(
      value === undefined
        ? `${where} needs a role: ${ROLE_LIST}`
        : `Unknown role "${value}": one of ${ROLE_LIST}`,
    );
  }
  return role.data;
}

/** `--name value` or `--name=value`; the rest are positional. */
function splitOptions(args: string[]): { positional: string[]; options: Map<string, string> } {
  const positional: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (!arg.startsWith('--')) {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
    const value = eq === -1 ? args[++i] : arg.slice(eq + 1);
    if (value === undefined) throw new UsageError(`--${name} needs a value`);
    options.set(name, value);
  }
  return { positional, options };
}

/** Reads `users` or `user <action> ...`; throws UsageError saying what is wrong. */
export function parseUserCommand(command: 'users' | 'user', args: string[]): UserCommand {
  if (command === 'users') {
    if (args.length > 0) throw new UsageError(`users takes no arguments`);
    return { kind: 'list' };
  }
  const [action, ...rest] = args;
  const { positional, options } = splitOptions(rest);
  const allowed: Record<string, string[]> = {
    create: ['role', 'name'],
    'reset-password': [],
    'set-role': [],
    disable: [],
    enable: [],
  };
  if (action === undefined || !(action in allowed)) {
    throw new UsageError(
      action === undefined
        ? 'user needs an action: create, reset-password, set-role, disable or enable'
        : `Unknown user action "${action}": create, reset-password, set-role, disable or enable`,
    );
  }
  for (const name of options.keys()) {
    if (!allowed[action]!.includes(name)) throw new UsageError(`user ${action} has no --${name}`);
  }
  const email = positional[0];
  if (!email) throw new UsageError(`user ${action} needs an e-mail address`);
  const expected = action === 'set-role' ? 2 : 1;
  if (positional.length > expected) {
    throw new UsageError(`user ${action}: unexpected "${positional[expected]}"`);
  }
  switch (action) {
    case 'create': {
      const input = CreateUser.safeParse({
        email,
        role: parseRole(options.get('role'), 'user create --role'),
        name: options.get('name') ?? email.split('@')[0],
      });
      if (!input.success) {
        const issue = input.error.issues[0]!;
        throw new UsageError(`user create: ${issue.path.join('.')} ${issue.message}`);
      }
      return { kind: 'create', ...input.data };
    }
    case 'set-role':
      return { kind: 'set-role', email, role: parseRole(positional[1], 'user set-role') };
    case 'reset-password':
      return { kind: 'reset-password', email };
    default:
      return { kind: action as 'disable' | 'enable', email };
  }
}

/**
 * Runs a user command on the data directory through the same service as the API, so the same
 * rules hold (the last active administrator stays). Every change, refused ones too, goes to the
 * audit trail as who = cli. An open server sees the change at the user's next call.
 */
export async function runUserCommand(
  core: Core,
  config: Pick<Config, 'passwordHashCost'>,
  cmd: UserCommand,
): Promise<void> {
  // A store no server has opened yet gets its first administrator here, as a first start
  // would: users created before it would otherwise stop the server from making one.
  await core.services.auth.ensureAdmin();
  const users = new UserRepository(core.db);
  const admin = new UserAdminService({
    users,
    keys: core.repos.keys,
    bus: core.bus,
    log: core.log,
    passwordHashCost: config.passwordHashCost,
  });
  const audit = new AuditService({ audit: new AuditRepository(core.db), log: core.log });

  if (cmd.kind === 'list') {
    printUsers(admin.list(), (id) => lastLogin(audit, id));
    return;
  }

  const record = (outcome: 'ok' | 'failed', detail: Record<string, unknown> | null) =>
    audit.record({
      user_id: null,
      user_email: CLI.email,
      key_id: null,
      key_kind: null,
      action: `cli user ${cmd.kind}`,
      target: cmd.email,
      address: 'cli',
      status: null,
      outcome,
      detail,
    });
  const asked = cmd.kind === 'create' || cmd.kind === 'set-role' ? { role: cmd.role } : null;
  try {
    const done = await apply(admin, cmd);
    record('ok', asked);
    console.log(done);
  } catch (e) {
    record('failed', {
      ...asked,
      detail: e instanceof AppError ? e.message : 'an unexpected error',
    });
    throw e;
  }
}

/** Makes the change; answers what to print. */
async function apply(admin: UserAdminService, cmd: Exclude<UserCommand, { kind: 'list' }>) {
  if (cmd.kind === 'create') {
    const created = await admin.create({ email: cmd.email, name: cmd.name, role: cmd.role }, CLI);
    return oneTimePassword(`Created the ${cmd.role} ${created.user.email}`, created);
  }
  const user = admin.findByEmail(cmd.email);
  switch (cmd.kind) {
    case 'reset-password':
      return oneTimePassword(
        `Password of ${user.email} reset; their sessions and API keys are ended`,
        await admin.resetPassword(user.id, CLI),
      );
    case 'set-role':
      admin.update(user.id, { role: cmd.role }, CLI);
      return `${user.email} is now ${article(cmd.role)} ${cmd.role} (was ${user.role})`;
    case 'disable':
      admin.update(user.id, { disabled: true }, CLI);
      return `${user.email} is disabled; their sessions and API keys are ended`;
    case 'enable':
      admin.update(user.id, { disabled: false }, CLI);
      return `${user.email} is enabled`;
  }
}

function oneTimePassword(headline: string, r: { one_time_password: string }): string {
  return (
    `${headline}\n` +
    `One-time password (shown once): ${r.one_time_password}\n` +
    `They must choose their own password at their next login.`
  );
}

const article = (role: Role) => (role === 'administrator' || role === 'operator' ? 'an' : 'a');

/** The newest successful login in the audit trail (kept for the audit retention). */
function lastLogin(audit: AuditService, userId: number): string | null {
  const page = audit.search({ user: String(userId), action: LOGIN, outcome: 'ok', limit: 1 });
  return page.entries[0]?.at ?? null;
}

function statusOf(u: UserAccount): string {
  if (u.disabled_at) return 'disabled';
  if (u.must_change_password) return 'one-time password';
  return 'active';
}

function printUsers(list: UserAccount[], lastLoginOf: (id: number) => string | null): void {
  if (list.length === 0) {
    console.log('No users.');
    return;
  }
  const rows = [
    ['ID', 'EMAIL', 'ROLE', 'STATUS', 'LAST LOGIN'],
    ...list.map((u) => [
      String(u.id),
      u.email,
      u.role,
      statusOf(u),
      lastLoginOf(u.id) ?? 'none recorded',
    ]),
  ];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((r) => r[c]!.length)));
  for (const r of rows) {
    console.log(
      r.map((cell, c) => (c === r.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  '),
    );
  }
}
