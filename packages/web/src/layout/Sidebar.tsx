import { useEffect, type ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { AppShell, NavLink, ScrollArea, SegmentedControl, Stack, Text } from '@mantine/core';
import { IconChevronRight } from '@tabler/icons-react';
import {
  AGENT_HOME_TAB,
  AGENT_LABELS,
  findTab,
  menuFor,
  tabPath,
  type AgentId,
  type TabDefinition,
} from '../navigation/tabRegistry';
import { useRole } from '../session/useCan';
import { useExpandedMenus } from './useExpandedMenus';

/** Sidebar width: the spec's 72 units of 4 px. */
export const SIDEBAR_WIDTH = 288;

interface SidebarProps {
  activeTabId: string;
  agent: AgentId;
  /** Called after a menu entry is chosen (closes the drawer on small screens). */
  onNavigate?: () => void;
  /** The footer panel (system status), composed by the app. */
  footer?: ReactNode;
}

export function Sidebar({ activeTabId, agent, onNavigate, footer }: SidebarProps) {
  const navigate = useNavigate();
  const activeGroup = findTab(activeTabId)?.group;
  const { isExpanded, setGroupExpanded } = useExpandedMenus(activeGroup);
  const role = useRole();

  // Opening a tab (from a link, a cross-link or the address bar) opens its group.
  useEffect(() => {
    if (activeGroup) setGroupExpanded(activeGroup, true);
  }, [activeGroup, activeTabId, setGroupExpanded]);

  const tabLink = (tab: TabDefinition, nested: boolean) => {
    const Icon = tab.icon;
    return (
      <NavLink
        key={tab.id}
        component={Link}
        to={tabPath(tab.id)}
        label={tab.label}
        active={tab.id === activeTabId}
        onClick={onNavigate}
        leftSection={!nested && Icon ? <Icon size={18} stroke={1.6} /> : undefined}
        variant="light"
        styles={{ root: { borderRadius: 'var(--mantine-radius-md)' } }}
        data-tab={tab.id}
      />
    );
  };

  return (
    <>
      <AppShell.Section p="md" pb="xs">
        <SegmentedControl
          fullWidth
          value={agent}
          onChange={(value) => {
            navigate(tabPath(AGENT_HOME_TAB[value as AgentId]));
            onNavigate?.();
          }}
          data={[
            { value: 'agent1', label: AGENT_LABELS.agent1.name },
            { value: 'agent2', label: AGENT_LABELS.agent2.name },
          ]}
          aria-label="Agent"
        />
        <Text size="xs" c="dimmed" ta="center" mt={6}>
          {AGENT_LABELS[agent].role}
        </Text>
      </AppShell.Section>

      {/* The menu scrolls between the agent switch and the status panel, its scrollbar shown
          whenever the open groups are taller than the window (hidden, nothing told it scrolls). */}
      <AppShell.Section
        grow
        component={ScrollArea}
        px="md"
        type="auto"
        scrollbarSize={6}
        offsetScrollbars="y"
        mih={0}
      >
        <Stack gap={2} pb="md" component="nav" aria-label={`${AGENT_LABELS[agent].name} menu`}>
          {menuFor(agent, role).map((entry) => {
            if (entry.kind === 'tab') return tabLink(entry.tab, false);
            const { group, tabs } = entry;
            const Icon = group.icon;
            return (
              <NavLink
                key={group.id}
                component="button"
                type="button"
                aria-expanded={isExpanded(group.id)}
                label={group.label}
                leftSection={<Icon size={18} stroke={1.6} />}
                rightSection={<IconChevronRight size={14} stroke={1.8} />}
                opened={isExpanded(group.id)}
                onChange={(opened) => setGroupExpanded(group.id, opened)}
                active={group.id === activeGroup && !isExpanded(group.id)}
                variant="light"
                childrenOffset={28}
                styles={{ root: { borderRadius: 'var(--mantine-radius-md)' } }}
                data-group={group.id}
              >
                {tabs.map((tab) => tabLink(tab, true))}
              </NavLink>
            );
          })}
        </Stack>
      </AppShell.Section>

      {footer ? (
        <AppShell.Section p="md" data-testid="sidebar-footer">
          {footer}
        </AppShell.Section>
      ) : null}
    </>
  );
}
