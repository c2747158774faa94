import { Avatar, Group, Menu, Text, UnstyledButton } from '@mantine/core';
import { IconChevronDown, IconLogout, IconShieldLock } from '@tabler/icons-react';
import type { User } from '@adam/contracts';
import { useOpenTab } from '../navigation/useTabNavigation';
import { useLogout } from './useLogout';

function initials(text: string): string {
  const words = text.split(/[\s@._-]+/).filter(Boolean);
  return (
    words
      .slice(0, 2)
      .map((w) => w[0]?.toUpperCase())
      .join('') || '?'
  ).slice(0, 2);
}

/** The header's user menu: who is logged in, Security and Logout. */
export function UserMenu({ user }: { user: User | null }) {
  const openTab = useOpenTab();
  const logout = useLogout();
  const shown = user?.name?.trim() || user?.email || 'Administrator';
  return (
    <Menu position="bottom-end" width={220} shadow="md" withArrow>
      <Menu.Target>
        <UnstyledButton aria-label="User menu" px={6} py={4} style={{ borderRadius: 8 }}>
          <Group gap={8} wrap="nowrap">
            <Avatar size={30} radius="xl" color="indigo" variant="filled">
              {initials(shown)}
            </Avatar>
            <Text size="sm" fw={500} visibleFrom="md" maw={180} truncate>
              {shown}
            </Text>
            <IconChevronDown size={14} />
          </Group>
        </UnstyledButton>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{user?.email ?? 'Signed in'}</Menu.Label>
        <Menu.Item
          leftSection={<IconShieldLock size={16} />}
          onClick={() => openTab('settings-security')}
        >
          Security
        </Menu.Item>
        <Menu.Divider />
        <Menu.Item color="red" leftSection={<IconLogout size={16} />} onClick={() => void logout()}>
          Logout
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
