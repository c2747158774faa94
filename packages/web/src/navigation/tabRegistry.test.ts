import { describe, expect, it } from 'vitest';
import {
  agentOfTab,
  findTab,
  menuFor,
  tabHref,
  tabIdFromSubPath,
  tabPath,
  TABS,
} from './tabRegistry';

describe('tab registry', () => {
  it('maps every tab id to /dashboard/{id with dashes as slashes} and back', () => {
    expect(tabPath('settings-processing')).toBe('/dashboard/settings/processing');
    expect(tabPath('agent2-overview')).toBe('/dashboard/agent2/overview');
    expect(tabPath('model-playground-url')).toBe('/dashboard/model/playground/url');
    expect(tabPath('system-checklist')).toBe('/dashboard/system/checklist');
    for (const tab of TABS) {
      const subPath = tabPath(tab.id).replace('/dashboard/', '');
      expect(tabIdFromSubPath(subPath)).toBe(tab.id);
    }
  });

  it('ignores empty and trailing segments', () => {
    expect(tabIdFromSubPath('')).toBe('');
    expect(tabIdFromSubPath('/')).toBe('');
    expect(tabIdFromSubPath('settings/processing/')).toBe('settings-processing');
  });

  it('holds exactly the tabs of the spec', () => {
    expect(TABS.map((t) => t.id).sort()).toEqual(
      [
        'overview',
        'snippets-search',
        'snippets-history',
        'snippets-analytics',
        'sources-add',
        'sources-manage',
        'sources-snippets',
        'sources-queue',
        'emotions',
        'index-stats',
        'index-search',
        'index-optimize',
        'index-content',
        'index-quality',
        'monitoring-realtime',
        'monitoring-performance',
        'monitoring-logs',
        'maintenance-tasks',
        'system-checklist',
        'maintenance-backup',
        'maintenance-cleanup',
        'settings-general',
        'settings-processing',
        'settings-scraping',
        'settings-resources',
        'settings-quality',
        'settings-security',
        'settings-keys',
        'settings-sessions',
        'settings-users',
        'settings-audit',
        'model-management',
        'model-playground',
        'model-playground-url',
        'model-playground-wikipedia',
        'agent2-overview',
        'agent2-control',
        'agent2-evolution',
        'agent2-babies',
        'agent2-snippets',
        'agent2-analytics',
      ].sort(),
    );
  });

  it('selects the Agent 2 menu for ids starting with agent2', () => {
    expect(agentOfTab('agent2-control')).toBe('agent2');
    expect(agentOfTab('agent2-whatever')).toBe('agent2');
    expect(agentOfTab('overview')).toBe('agent1');
    for (const tab of TABS) expect(tab.agent).toBe(agentOfTab(tab.id));
  });

  it('builds the menus in spec order', () => {
    const agent1 = menuFor('agent1').map((e) =>
      e.kind === 'tab' ? e.tab.id : `${e.group.id}: ${e.tabs.map((t) => t.id).join(', ')}`,
    );
    expect(agent1).toEqual([
      'overview',
      'snippets: snippets-search, snippets-history, snippets-analytics',
      'sources: sources-add, sources-manage, sources-snippets, sources-queue',
      'emotions',
      'index: index-stats, index-search, index-optimize, index-content, index-quality',
      'monitoring: monitoring-realtime, monitoring-performance, monitoring-logs',
      'maintenance: maintenance-tasks, system-checklist, maintenance-backup, maintenance-cleanup',
      'settings: settings-general, settings-processing, settings-scraping, settings-resources, settings-quality, settings-security, settings-keys, settings-sessions, settings-users, settings-audit',
      'models: model-management, model-playground, model-playground-url, model-playground-wikipedia',
    ]);
    expect(menuFor('agent2').map((e) => (e.kind === 'tab' ? e.tab.id : e.group.id))).toEqual([
      'agent2-overview',
      'agent2-control',
      'agent2-evolution',
      'agent2-babies',
      'agent2-snippets',
      'agent2-analytics',
    ]);
  });

  it('carries only the declared cross-link parameters in the URL', () => {
    expect(tabHref('sources-snippets', { job_id: 42, source_url: 'https://a.org/x?y=1' })).toBe(
      '/dashboard/sources/snippets?job_id=42&source_url=https%3A%2F%2Fa.org%2Fx%3Fy%3D1',
    );
    expect(tabHref('settings-scraping', { domain: 'example.org', other: 'x' })).toBe(
      '/dashboard/settings/scraping?domain=example.org',
    );
    expect(tabHref('monitoring-realtime', { refresh: 2000, active: true })).toBe(
      '/dashboard/monitoring/realtime?refresh=2000&active=true',
    );
    expect(tabHref('overview', { domain: 'x' })).toBe('/dashboard/overview');
    expect(findTab('nope')).toBeUndefined();
  });
});
