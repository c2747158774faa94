import { describe, expect, it } from 'vitest';
import { act, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { WS_CLOSE_UNAUTHORIZED } from '@adam/contracts';
import { json, mockFetch, noContent } from '../test/fetchMock';
import { renderApp } from '../test/renderApp';
import { loggedIn } from '../test/session';
import { WS_AUTH_FAILURE_MESSAGE } from '../lib/realtime/realtimeClient';
import { FakeWebSocket } from '../test/fakeSocket';

const publicConfig = json({
  segment_max_tokens: 384,
  segment_max_sentences: 3,
  segmenter_model: 'builtin',
  default_credentials_in_use: false,
  default_credentials: null,
  version: '0.1.0',
});

describe('logout and the realtime channel', () => {
  it('shows no authentication-failure toast when the server closes the socket of our own logout', async () => {
    mockFetch({
      ...loggedIn(),
      // As the server does: the logout revokes the key and closes that key's socket with 4401
      // before it answers.
      'POST /auth/logout': () => {
        const socket = FakeWebSocket.latest()!;
        if (!socket.closed) socket.serverClose(WS_CLOSE_UNAUTHORIZED);
        return noContent();
      },
      'GET /config/public': publicConfig,
    });
    renderApp('/dashboard/overview');
    const u = userEvent.setup();
    await screen.findByRole('heading', { name: 'System Overview' });
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    act(() => FakeWebSocket.latest()!.open());

    await u.click(screen.getByRole('button', { name: 'Logout' }));
    expect(await screen.findByRole('button', { name: 'Access Control Center' })).toBeVisible();
    // A toast would have been shown in the same tick as the close: give it a moment anyway.
    await act(() => new Promise((r) => setTimeout(r, 50)));
    expect(screen.queryByText(WS_AUTH_FAILURE_MESSAGE)).not.toBeInTheDocument();
    // Closed by the console itself, normally, and not reopened.
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it('still reports a refusal that is not a logout', async () => {
    mockFetch(loggedIn());
    renderApp('/dashboard/overview');
    await waitFor(() => expect(FakeWebSocket.instances).toHaveLength(1));
    act(() => FakeWebSocket.latest()!.open());
    act(() => FakeWebSocket.latest()!.serverClose(WS_CLOSE_UNAUTHORIZED));
    expect((await screen.findAllByText(WS_AUTH_FAILURE_MESSAGE)).length).toBeGreaterThan(0);
  });
});
