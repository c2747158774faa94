import type { ReactNode } from 'react';
import {
  ActionIcon,
  Burger,
  Button,
  Divider,
  Group,
  Switch,
  Text,
  ThemeIcon,
  Tooltip,
  useComputedColorScheme,
  useMantineColorScheme,
} from '@mantine/core';
import { IconLogout, IconMoon, IconSun } from '@tabler/icons-react';
import { useSession } from '../session/useSession';
import { useMonitoring } from './MonitoringContext';
import { UserMenu } from './UserMenu';
import { useLogout } from './useLogout';

function ColorSchemeToggle() {
  const { setColorScheme } = useMantineColorScheme();
  const scheme = useComputedColorScheme('dark', { getInitialValueInEffect: false });
  const next = scheme === 'dark' ? 'light' : 'dark';
  return (
    <Tooltip label={`Switch to ${next} theme`} withArrow>
      <ActionIcon
        variant="default"
        size="lg"
        radius="md"
        aria-label={`Switch to ${next} theme`}
        onClick={() => setColorScheme(next)}
      >
        {scheme === 'dark' ? <IconSun size={18} /> : <IconMoon size={18} />}
      </ActionIcon>
    </Tooltip>
  );
}

export function Header({
  navOpened,
  onToggleNav,
  figures,
}: {
  navOpened: boolean;
  onToggleNav: () => void;
  /** Live figures beside the monitoring toggle, composed by the app. */
  figures?: ReactNode;
}) {
  const { user } = useSession();
  const { enabled, setEnabled } = useMonitoring();
  const logout = useLogout();
  return (
    <Group h="100%" px="md" justify="space-between" wrap="nowrap">
      <Group gap="sm" wrap="nowrap">
        <Burger
          opened={navOpened}
          onClick={onToggleNav}
          hiddenFrom="sm"
          size="sm"
          aria-label="Toggle navigation"
        />
        <ThemeIcon
          size={34}
          radius="md"
          variant="gradient"
          gradient={{ from: 'indigo', to: 'cyan', deg: 135 }}
        >
          <Text fw={800} size="lg" c="white">
            A
          </Text>
        </ThemeIcon>
        <div>
          {/* One line each: at 1024 px the title and the switch wrapped into a cramped header. */}
          <Text fw={700} size="md" lh={1.1} style={{ whiteSpace: 'nowrap' }}>
            ADAM Control Center
          </Text>
          <Text size="xs" c="dimmed" lh={1.1} visibleFrom="xs">
            Administration console
          </Text>
        </div>
      </Group>

      <Group gap="lg" wrap="nowrap">
        <Switch
          checked={enabled}
          onChange={(event) => setEnabled(event.currentTarget.checked)}
          label={`Monitoring ${enabled ? 'On' : 'Off'}`}
          color="teal"
          size="sm"
          styles={{ label: { whiteSpace: 'nowrap' } }}
        />
        {figures}
        <Divider orientation="vertical" visibleFrom="sm" />
        <Group gap="xs" wrap="nowrap">
          <ColorSchemeToggle />
          <UserMenu user={user} />
          <Button
            variant="default"
            radius="md"
            leftSection={<IconLogout size={16} />}
            onClick={() => void logout()}
          >
            Logout
          </Button>
        </Group>
      </Group>
    </Group>
  );
}
