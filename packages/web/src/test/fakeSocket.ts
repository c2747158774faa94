import type { SocketLike } from '../lib/realtime/realtimeClient';

/**
 * A WebSocket stand-in for jsdom: records what the client sends and lets a test open, push
 * messages and close. Installed as window.WebSocket by setup.ts.
 */
export class FakeWebSocket implements SocketLike {
  static instances: FakeWebSocket[] = [];
  onopen: SocketLike['onopen'] = null;
  onclose: SocketLike['onclose'] = null;
  onmessage: SocketLike['onmessage'] = null;
  onerror: SocketLike['onerror'] = null;
  readonly sent: string[] = [];
  closed = false;

  constructor(readonly url: string) {
    FakeWebSocket.instances.push(this);
  }

  static latest(): FakeWebSocket | undefined {
    return FakeWebSocket.instances[FakeWebSocket.instances.length - 1];
  }

  static reset(): void {
    FakeWebSocket.instances = [];
  }

  send(data: string): void {
    this.sent.push(data);
  }

  close(code = 1000): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.({ code });
  }

  /** Server side: accept the connection. */
  open(): void {
    this.onopen?.({});
  }

  /** Server side: push a message (objects are sent as JSON). */
  push(message: unknown): void {
    this.onmessage?.({ data: typeof message === 'string' ? message : JSON.stringify(message) });
  }

  /** Server side: close with a code. */
  serverClose(code: number): void {
    this.closed = true;
    this.onclose?.({ code });
  }
}
