/**
 * The screen behind each tab of the registry (navigation/tabRegistry.ts), loaded when its tab is
 * first opened. Only the app imports this file: features link to tabs through the registry.
 */
import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

type TabScreen = LazyExoticComponent<ComponentType>;

/** `lazy` for a named export, so each screen's code loads when its tab is first opened. */
function screen<K extends string>(
  load: () => Promise<Record<K, ComponentType>>,
  name: K,
): TabScreen {
  return lazy(() => load().then((module) => ({ default: module[name] })));
}

export const TAB_SCREENS: Readonly<Record<string, TabScreen>> = {
  overview: screen(() => import('../features/overview/OverviewScreen'), 'OverviewScreen'),
  'snippets-search': screen(
    () => import('../features/snippets/SnippetsSearchScreen'),
    'SnippetsSearchScreen',
  ),
  'snippets-history': screen(
    () => import('../features/snippets/SearchHistoryScreen'),
    'SearchHistoryScreen',
  ),
  'snippets-analytics': screen(
    () => import('../features/snippets/SnippetsAnalyticsScreen'),
    'SnippetsAnalyticsScreen',
  ),
  'sources-add': screen(() => import('../features/sources/AddSourcesScreen'), 'AddSourcesScreen'),
  'sources-manage': screen(
    () => import('../features/sources/ManageSourcesScreen'),
    'ManageSourcesScreen',
  ),
  'sources-snippets': screen(
    () => import('../features/snippets/SnippetsBrowserScreen'),
    'SnippetsBrowserScreen',
  ),
  'sources-queue': screen(() => import('../features/jobs/JobQueueScreen'), 'JobQueueScreen'),
  emotions: screen(
    () => import('../features/emotions/EmotionAnalyticsScreen'),
    'EmotionAnalyticsScreen',
  ),
  'index-stats': screen(() => import('../features/index/IndexStatsScreen'), 'IndexStatsScreen'),
  'index-search': screen(() => import('../features/index/IndexSearchScreen'), 'IndexSearchScreen'),
  'index-optimize': screen(
    () => import('../features/index/IndexOptimizeScreen'),
    'IndexOptimizeScreen',
  ),
  'index-content': screen(
    () => import('../features/index/IndexContentScreen'),
    'IndexContentScreen',
  ),
  'index-quality': screen(() => import('../features/quality/QualityScreen'), 'QualityScreen'),
  'monitoring-realtime': screen(
    () => import('../features/monitoring/RealtimeMonitoringScreen'),
    'RealtimeMonitoringScreen',
  ),
  'monitoring-performance': screen(
    () => import('../features/monitoring/PerformanceMonitoringScreen'),
    'PerformanceMonitoringScreen',
  ),
  'monitoring-logs': screen(() => import('../features/logs/SystemLogsScreen'), 'SystemLogsScreen'),
  'maintenance-tasks': screen(
    () => import('../features/maintenance/MaintenanceTasksScreen'),
    'MaintenanceTasksScreen',
  ),
  'system-checklist': screen(
    () => import('../features/maintenance/SystemChecklistScreen'),
    'SystemChecklistScreen',
  ),
  'maintenance-backup': screen(
    () => import('../features/maintenance/BackupsScreen'),
    'BackupsScreen',
  ),
  'maintenance-cleanup': screen(
    () => import('../features/maintenance/CleanupScreen'),
    'CleanupScreen',
  ),
  'settings-general': screen(
    () => import('../features/settings/GeneralSettingsScreen'),
    'GeneralSettingsScreen',
  ),
  'settings-processing': screen(
    () => import('../features/settings/ProcessingSettingsScreen'),
    'ProcessingSettingsScreen',
  ),
  'settings-scraping': screen(
    () => import('../features/settings/ScrapingRulesScreen'),
    'ScrapingRulesScreen',
  ),
  'settings-resources': screen(
    () => import('../features/settings/ResourcesSettingsScreen'),
    'ResourcesSettingsScreen',
  ),
  'settings-quality': screen(
    () => import('../features/settings/QualitySettingsScreen'),
    'QualitySettingsScreen',
  ),
  'settings-security': screen(
    () => import('../features/settings/SecuritySettingsScreen'),
    'SecuritySettingsScreen',
  ),
  'settings-keys': screen(() => import('../features/settings/ApiKeysScreen'), 'ApiKeysScreen'),
  'settings-sessions': screen(
    () => import('../features/settings/SessionsScreen'),
    'SessionsScreen',
  ),
  'settings-users': screen(() => import('../features/settings/UsersScreen'), 'UsersScreen'),
  'settings-audit': screen(() => import('../features/settings/AuditLogScreen'), 'AuditLogScreen'),
  'model-management': screen(
    () => import('../features/models/ModelManagementScreen'),
    'ModelManagementScreen',
  ),
  'model-playground': screen(
    () => import('../features/playground/PlaygroundScreen'),
    'PlaygroundScreen',
  ),
  'model-playground-url': screen(
    () => import('../features/playground/UrlPlaygroundScreen'),
    'UrlPlaygroundScreen',
  ),
  'model-playground-wikipedia': screen(
    () => import('../features/playground/WikipediaPlaygroundScreen'),
    'WikipediaPlaygroundScreen',
  ),
  'agent2-overview': screen(
    () => import('../features/agent2/Agent2OverviewScreen'),
    'Agent2OverviewScreen',
  ),
  'agent2-control': screen(
    () => import('../features/agent2/Agent2ControlScreen'),
    'Agent2ControlScreen',
  ),
  'agent2-evolution': screen(
    () => import('../features/agent2/Agent2EvolutionScreen'),
    'Agent2EvolutionScreen',
  ),
  'agent2-babies': screen(
    () => import('../features/agent2/Agent2BabiesScreen'),
    'Agent2BabiesScreen',
  ),
  'agent2-snippets': screen(
    () => import('../features/agent2/Agent2SnippetsScreen'),
    'Agent2SnippetsScreen',
  ),
  'agent2-analytics': screen(
    () => import('../features/agent2/Agent2AnalyticsScreen'),
    'Agent2AnalyticsScreen',
  ),
};

export function tabScreen(id: string): TabScreen | undefined {
  return Object.hasOwn(TAB_SCREENS, id) ? TAB_SCREENS[id] : undefined;
}
