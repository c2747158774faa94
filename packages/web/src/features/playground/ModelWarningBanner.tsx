import { useState } from 'react';
import { Alert } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import { useRealtimeEvent } from '../../lib/realtime/RealtimeProvider';

/**
 * The yellow banner of spec 001 §2.8: the latest `model_warning` the channel pushed while the
 * screen is open (the server sends one when an analysed text's language has no language pack).
 */
export function ModelWarningBanner() {
  const [message, setMessage] = useState<string | null>(null);
  useRealtimeEvent('model_warning', (event) => setMessage(event.message));
  if (!message) return null;
  return (
    <Alert
      color="yellow"
      variant="light"
      icon={<IconAlertTriangle size={18} />}
      title="Model warning"
      aria-label="Model warning"
      withCloseButton
      closeButtonLabel="Dismiss model warning"
      onClose={() => setMessage(null)}
    >
      {message}
    </Alert>
  );
}
