/**
 * The tab registry: the single source of the dashboard's routes and of both agents' menus
 * (spec 000 §2). A tab's path is /dashboard/{id with dashes replaced by slashes}; the order of
 * TABS is the order of the menus. The screens behind the tabs are bound in app/tabs.ts, so
 * screens can link to tabs from here without importing the file that loads them.
 */
import { roleAllows, type Role } from '@adam/contracts';
import {
  IconActivity,
  IconAdjustments,
  IconBabyCarriage,
  IconBrain,
  IconChartBar,
  IconDatabase,
  IconDna2,
  IconFileText,
  IconLayoutDashboard,
  IconMoodSmile,
  IconNotes,
  IconSettings,
  IconSparkles,
  IconTool,
  IconWorldWww,
  type Icon,
} from '@tabler/icons-react';

export type AgentId = 'agent1' | 'agent2';

export type MenuGroupId =
  'snippets' | 'sources' | 'index' | 'monitoring' | 'maintenance' | 'settings' | 'models';

export interface MenuGroup {
  id: MenuGroupId;
  label: string;
  icon: Icon;
}

export interface TabDefinition {
  id: string;
  /** Menu entry text. */
  label: string;
  agent: AgentId;
  /** The expandable menu group the tab sits in; standalone entries have none. */
  group?: MenuGroupId;
  /** Icon of a standalone entry (grouped entries show their group's icon). */
  icon?: Icon;
  /** URL search parameters other screens may open this tab with (cross-links). */
  params?: readonly string[];
  /**
   * The least role that may open the tab (default viewer), matching the server's route roles: the
   * menu hides the tab below it and its URL shows a "needs the role" page instead of the screen.
   */
  role?: Role;
}

/** The least role a tab needs (viewer unless it says). */
export function tabRole(tab: TabDefinition): Role {
  return tab.role ?? 'viewer';
}

export function tabAllowed(tab: TabDefinition, role: Role): boolean {
  return roleAllows(role, tabRole(tab));
}

const MENU_GROUPS: Record<MenuGroupId, MenuGroup> = {
  snippets: { id: 'snippets', label: 'Snippets', icon: IconNotes },
  sources: { id: 'sources', label: 'Sources', icon: IconWorldWww },
  index: { id: 'index', label: 'Index', icon: IconDatabase },
  monitoring: { id: 'monitoring', label: 'Monitoring', icon: IconActivity },
  maintenance: { id: 'maintenance', label: 'Maintenance', icon: IconTool },
  settings: { id: 'settings', label: 'Settings', icon: IconSettings },
  models: { id: 'models', label: 'Models', icon: IconBrain },
};

const a1 = 'agent1' as const;
const a2 = 'agent2' as const;

export const TABS: readonly TabDefinition[] = [
  // Agent 1: Memory Collection System
  {
    id: 'overview',
    label: 'Overview',
    agent: a1,
    icon: IconLayoutDashboard,
  },
  {
    id: 'snippets-search',
    label: 'Search',
    agent: a1,
    group: 'snippets',
  },
  {
    id: 'snippets-history',
    label: 'Search history',
    agent: a1,
    group: 'snippets',
  },
  {
    id: 'snippets-analytics',
    label: 'Analytics',
    agent: a1,
    group: 'snippets',
  },
  {
    id: 'sources-add',
    label: 'Add Sources',
    agent: a1,
    group: 'sources',
    params: ['tab'],
    role: 'operator',
  },
  {
    id: 'sources-manage',
    label: 'Manage Sources',
    agent: a1,
    group: 'sources',
  },
  {
    id: 'sources-snippets',
    label: 'Snippets',
    agent: a1,
    group: 'sources',
    params: ['job_id', 'source_url'],
  },
  {
    id: 'sources-queue',
    label: 'Queue',
    agent: a1,
    group: 'sources',
    params: ['job_id'],
  },
  {
    id: 'emotions',
    label: 'Emotions',
    agent: a1,
    icon: IconMoodSmile,
  },
  {
    id: 'index-stats',
    label: 'Statistics',
    agent: a1,
    group: 'index',
  },
  {
    id: 'index-search',
    label: 'Search',
    agent: a1,
    group: 'index',
  },
  {
    id: 'index-optimize',
    label: 'Optimize',
    agent: a1,
    group: 'index',
  },
  {
    id: 'index-content',
    label: 'Content',
    agent: a1,
    group: 'index',
  },
  {
    id: 'index-quality',
    label: 'Quality',
    agent: a1,
    group: 'index',
    params: ['set', 'run', 'add_query', 'mode'],
  },
  {
    id: 'monitoring-realtime',
    label: 'Real-time',
    agent: a1,
    group: 'monitoring',
    params: ['refresh', 'active'],
  },
  {
    id: 'monitoring-performance',
    label: 'Performance',
    agent: a1,
    group: 'monitoring',
  },
  {
    id: 'monitoring-logs',
    label: 'Logs',
    agent: a1,
    group: 'monitoring',
    role: 'operator',
  },
  {
    id: 'maintenance-tasks',
    label: 'Tasks',
    agent: a1,
    group: 'maintenance',
  },
  {
    id: 'system-checklist',
    label: 'System Checklist',
    agent: a1,
    group: 'maintenance',
  },
  {
    id: 'maintenance-backup',
    label: 'Backup',
    agent: a1,
    group: 'maintenance',
  },
  {
    id: 'maintenance-cleanup',
    label: 'Cleanup',
    agent: a1,
    group: 'maintenance',
    role: 'operator',
  },
  {
    id: 'settings-general',
    label: 'General',
    agent: a1,
    group: 'settings',
    role: 'administrator',
  },
  {
    id: 'settings-processing',
    label: 'Processing',
    agent: a1,
    group: 'settings',
    role: 'administrator',
  },
  {
    id: 'settings-scraping',
    label: 'Scraping Rules',
    agent: a1,
    group: 'settings',
    params: ['domain'],
    role: 'operator',
  },
  {
    id: 'settings-resources',
    label: 'Resources',
    agent: a1,
    group: 'settings',
    role: 'administrator',
  },
  {
    id: 'settings-quality',
    label: 'Quality',
    agent: a1,
    group: 'settings',
    role: 'administrator',
  },
  {
    id: 'settings-security',
    label: 'Security',
    agent: a1,
    group: 'settings',
  },
  {
    id: 'settings-keys',
    label: 'API Keys',
    agent: a1,
    group: 'settings',
  },
  {
    id: 'settings-sessions',
    label: 'Sessions',
    agent: a1,
    group: 'settings',
  },
  {
    id: 'settings-users',
    label: 'Users',
    agent: a1,
    group: 'settings',
    role: 'administrator',
  },
  {
    id: 'settings-audit',
    label: 'Audit Log',
    agent: a1,
    group: 'settings',
    role: 'administrator',
  },
  {
    id: 'model-management',
    label: 'Management',
    agent: a1,
    group: 'models',
  },
  {
    id: 'model-playground',
    label: 'Playground',
    agent: a1,
    group: 'models',
  },
  {
    id: 'model-playground-url',
    label: 'URL Playground',
    agent: a1,
    group: 'models',
    role: 'operator',
  },
  {
    id: 'model-playground-wikipedia',
    label: 'Wikipedia Playground',
    agent: a1,
    group: 'models',
    role: 'operator',
  },

  // Agent 2: Experience Generator
  {
    id: 'agent2-overview',
    label: 'Overview',
    agent: a2,
    icon: IconSparkles,
  },
  {
    id: 'agent2-control',
    label: 'Experience Generator',
    agent: a2,
    icon: IconAdjustments,
  },
  {
    id: 'agent2-evolution',
    label: 'Evolution Monitor',
    agent: a2,
    icon: IconDna2,
  },
  {
    id: 'agent2-babies',
    label: 'Digital Babies',
    agent: a2,
    icon: IconBabyCarriage,
  },
  {
    id: 'agent2-snippets',
    label: 'Enriched Snippets',
    agent: a2,
    icon: IconFileText,
  },
  {
    id: 'agent2-analytics',
    label: 'Analytics',
    agent: a2,
    icon: IconChartBar,
  },
];

const TABS_BY_ID = new Map(TABS.map((tab) => [tab.id, tab]));

export const DEFAULT_TAB_ID = 'overview';
export const AGENT_HOME_TAB: Record<AgentId, string> = {
  agent1: 'overview',
  agent2: 'agent2-overview',
};

export const AGENT_LABELS: Record<AgentId, { name: string; role: string }> = {
  agent1: { name: 'Agent 1', role: 'Memory Collection System' },
  agent2: { name: 'Agent 2', role: 'Experience Generator' },
};

export function findTab(id: string): TabDefinition | undefined {
  return TABS_BY_ID.get(id);
}

/** Ids starting with agent2 select the second agent's menu, all others the first's. */
export function agentOfTab(id: string): AgentId {
  return id.startsWith('agent2') ? 'agent2' : 'agent1';
}

/** The path of a tab: dashes become slashes (settings-processing → /dashboard/settings/processing). */
export function tabPath(id: string): string {
  return `/dashboard/${id.split('-').join('/')}`;
}

/** The tab id of the part of a path after /dashboard/ (segments joined with dashes). */
export function tabIdFromSubPath(subPath: string): string {
  return subPath.split('/').filter(Boolean).join('-');
}

export type TabParams = Record<string, string | number | boolean | null | undefined>;

/** The path with the tab's cross-link parameters, e.g. /dashboard/settings/scraping?domain=x.org. */
export function tabHref(id: string, params: TabParams = {}): string {
  const allowed = findTab(id)?.params ?? [];
  const search = new URLSearchParams();
  for (const name of allowed) {
    const value = params[name];
    if (value !== undefined && value !== null && value !== '') search.set(name, String(value));
  }
  const qs = search.toString();
  return qs ? `${tabPath(id)}?${qs}` : tabPath(id);
}

export type MenuEntry =
  { kind: 'tab'; tab: TabDefinition } | { kind: 'group'; group: MenuGroup; tabs: TabDefinition[] };

/**
 * One agent's menu: standalone tabs and groups, in registry order, without the tabs `role` may
 * not open (a group left empty disappears).
 */
export function menuFor(agent: AgentId, role: Role = 'administrator'): MenuEntry[] {
  const entries: MenuEntry[] = [];
  const groups = new Map<MenuGroupId, TabDefinition[]>();
  for (const tab of TABS) {
    if (tab.agent !== agent || !tabAllowed(tab, role)) continue;
    if (!tab.group) {
      entries.push({ kind: 'tab', tab });
      continue;
    }
    let tabs = groups.get(tab.group);
    if (!tabs) {
      tabs = [];
      groups.set(tab.group, tabs);
      entries.push({ kind: 'group', group: MENU_GROUPS[tab.group], tabs });
    }
    tabs.push(tab);
  }
  return entries;
}
