import type { ReactNode } from 'react';
import { Alert, List } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';

/**
 * What stopped an Add Sources form, above its button: a message, or one item a line (`items`).
 * Its accessible name is `label`, else its title.
 */
export function FormProblem({
  title,
  label = title,
  color = 'red',
  items,
  children,
}: {
  title?: string;
  label?: string;
  color?: 'red' | 'orange';
  items?: readonly string[];
  children?: ReactNode;
}) {
  return (
    <Alert
      color={color}
      variant="light"
      icon={<IconAlertTriangle size={16} />}
      title={title}
      aria-label={label}
    >
      {items ? (
        <List size="sm" spacing={2}>
          {items.map((item, i) => (
            <List.Item key={i}>{item}</List.Item>
          ))}
        </List>
      ) : (
        children
      )}
    </Alert>
  );
}
