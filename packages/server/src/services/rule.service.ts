import type {
  CreateScrapingRule,
  DeletedResponse,
  ScrapingRule,
  UpdateScrapingRule,
} from '@adam/contracts';
import { Conflict, NotFound, Unprocessable } from '../lib/errors.js';
import type { Logger } from '../logging.js';
import { normalizeDomain } from '../scraping/rules.js';
import type { RuleRepository, RuleRow } from '../store/rule.repository.js';

type Parsed<T> = { [K in keyof T]-?: Exclude<T[K], undefined> };

export class RuleService {
  constructor(private readonly deps: { rules: RuleRepository; log: Logger }) {}

  list(): ScrapingRule[] {
    return this.deps.rules.list().map(toRule);
  }

  /** Rows in the shape the scraping layer matches against. */
  forMatching(): {
    id: number;
    domain: string;
    mode: string;
    target: string | null;
    enabled: boolean;
  }[] {
    return this.list();
  }

  get(id: number): ScrapingRule {
    const row = this.deps.rules.findById(id);
    if (!row) throw new NotFound('scraping rule', id);
    return toRule(row);
  }

  create(input: Parsed<CreateScrapingRule>): ScrapingRule {
    const domain = normalizeDomain(input.domain);
    checkSelector(input.mode, input.target);
    if (this.deps.rules.findByDomain(domain)) {
      throw new Conflict(`A scraping rule for ${domain} already exists`);
    }
    const id = this.deps.rules.insert({ ...input, domain });
    this.deps.log.info({ component: 'rules' }, `Scraping rule added: ${domain} (${input.mode})`);
    return this.get(id);
  }

  update(id: number, change: UpdateScrapingRule): ScrapingRule {
    const current = this.get(id);
    const next = {
      domain: change.domain !== undefined ? normalizeDomain(change.domain) : current.domain,
      mode: change.mode ?? current.mode,
      target: change.target !== undefined ? change.target : current.target,
      enabled: change.enabled ?? current.enabled,
    };
    checkSelector(next.mode, next.target);
    const clash = this.deps.rules.findByDomain(next.domain);
    if (clash && clash.id !== id)
      throw new Conflict(`A scraping rule for ${next.domain} already exists`);
    this.deps.rules.update(id, next);
    this.deps.log.info(
      { component: 'rules' },
      `Scraping rule ${id} updated: ${next.domain} (${next.mode})`,
    );
    return this.get(id);
  }

  delete(id: number): DeletedResponse {
    const rule = this.get(id);
    this.deps.rules.deleteById(id);
    this.deps.log.info({ component: 'rules' }, `Scraping rule removed: ${rule.domain}`);
    return { id, deleted: true };
  }
}

function checkSelector(mode: string, target: string | null | undefined): void {
  if (mode === 'selector' && !target) {
    throw new Unprocessable('A selector rule needs a target CSS selector', [
      { field: 'target', message: 'is required when mode is selector' },
    ]);
  }
}

function toRule(r: RuleRow): ScrapingRule {
  return {
    id: r.id,
    domain: r.domain,
    mode: r.mode,
    target: r.target,
    enabled: r.enabled === 1,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}
