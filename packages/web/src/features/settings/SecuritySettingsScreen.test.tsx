import { describe, expect, it } from 'vitest';
import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { json, mockFetch, noContent } from '../../test/fetchMock';
import { renderApp } from '../../test/renderApp';
import { adminUser, loggedIn } from '../../test/session';

const QR = 'data:image/png;base64,iVBORw0KGgo=';

describe('Security settings', () => {
  it('enables 2FA: setup shows the QR code and secret, the code confirms it', async () => {
    let enabled = false;
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /auth/me': () => json({ ...adminUser, totp_enabled: enabled }),
      'POST /auth/2fa/setup': json({
        secret: 'JBSWY3DPEHPK3PXP',
        otpauth_url: 'otpauth://totp/ADAM:admin@example.com?secret=JBSWY3DPEHPK3PXP',
        qr: QR,
      }),
      'POST /auth/2fa/enable': () => {
        enabled = true;
        return json({ totp_enabled: true });
      },
    });
    renderApp('/dashboard/settings/security');
    const u = userEvent.setup();
    expect(await screen.findByText('Two-factor authentication is disabled.')).toBeInTheDocument();
    await u.click(screen.getByRole('button', { name: 'Enable two-factor authentication' }));

    expect(await screen.findByAltText('Two-factor authentication QR code')).toHaveAttribute(
      'src',
      QR,
    );
    expect(screen.getByTestId('totp-secret')).toHaveTextContent('JBSWY3DPEHPK3PXP');

    await u.click(screen.getByRole('button', { name: 'Confirm and enable' }));
    expect(await screen.findByText('Enter the 6-digit code')).toBeInTheDocument();
    expect(callsTo('POST', '/auth/2fa/enable')).toHaveLength(0);

    await u.type(screen.getByLabelText('Authentication Code'), '123456');
    await u.click(screen.getByRole('button', { name: 'Confirm and enable' }));
    expect(await screen.findByText('Two-factor authentication enabled')).toBeInTheDocument();
    expect(callsTo('POST', '/auth/2fa/enable')[0]?.body).toEqual({ code: '123456' });
    expect(await screen.findByText('Two-factor authentication is enabled.')).toBeInTheDocument();
    expect(
      screen.getByRole('button', { name: 'Disable two-factor authentication' }),
    ).toBeInTheDocument();
  });

  it('disables 2FA with a code; a wrong code stays on screen without logging out', async () => {
    let attempts = 0;
    let enabled = true;
    const { callsTo } = mockFetch({
      ...loggedIn(),
      'GET /auth/me': () => json({ ...adminUser, totp_enabled: enabled }),
      'POST /auth/2fa/disable': () => {
        if (attempts++ === 0) return json({ detail: 'Invalid two-factor code' }, 401);
        enabled = false;
        return json({ totp_enabled: false });
      },
    });
    renderApp('/dashboard/settings/security');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText('Authentication Code'), '111111');
    await u.click(screen.getByRole('button', { name: 'Disable two-factor authentication' }));
    expect(await screen.findAllByText('Invalid two-factor code')).not.toHaveLength(0);
    expect(callsTo('POST', '/auth/refresh')).toHaveLength(0);

    await u.click(screen.getByRole('button', { name: 'Disable two-factor authentication' }));
    expect(await screen.findByText('Two-factor authentication disabled')).toBeInTheDocument();
    expect(await screen.findByText('Two-factor authentication is disabled.')).toBeInTheDocument();
  });

  it('changes the password after checking length and confirmation', async () => {
    const { callsTo } = mockFetch({ ...loggedIn(), 'POST /auth/password': noContent() });
    renderApp('/dashboard/settings/security');
    const u = userEvent.setup();
    await u.type(await screen.findByLabelText('Current Password'), 'admin');
    await u.type(screen.getByLabelText('New Password'), 'short');
    await u.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(
      await screen.findByText('New password must be at least 8 characters'),
    ).toBeInTheDocument();

    await u.clear(screen.getByLabelText('New Password'));
    await u.type(screen.getByLabelText('New Password'), 'a-longer-password');
    await u.type(screen.getByLabelText('Confirm New Password'), 'something-else');
    await u.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByText('Passwords do not match')).toBeInTheDocument();
    expect(callsTo('POST', '/auth/password')).toHaveLength(0);

    await u.clear(screen.getByLabelText('Confirm New Password'));
    await u.type(screen.getByLabelText('Confirm New Password'), 'a-longer-password');
    await u.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByText('Password changed')).toBeInTheDocument();
    expect(callsTo('POST', '/auth/password')[0]?.body).toEqual({
      current_password: 'admin',
      new_password: 'a-longer-password',
    });
    await waitFor(() => expect(screen.getByLabelText('Current Password')).toHaveValue(''));
  });
});
