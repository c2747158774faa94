import { z } from 'zod';
import { ByStatus } from './jobs.js';
import { RealtimeMetrics } from './system.js';

/**
 * Messages of the WebSocket channel (`GET /api/v1/ws`). Every server message is flat:
 * `{type, ...fields, timestamp}`. The client sends `{type: 'request_update'}` (or the plain text
 * `request_update`) and may send `{type: 'ping'}`.
 */

/**
 * Close codes. Browsers cannot send or receive 401/403 as close codes (applications get
 * 4000-4999), so the console reads 4401 and 4403 as its spec's 401 and 403.
 */
export const WS_CLOSE_UNAUTHORIZED = 4401;
/** A valid key that may not use the channel. */
export const WS_CLOSE_FORBIDDEN = 4403;

const base = { timestamp: z.string() };

export const LiveStats = z.object({
  total_snippets: z.number().int(),
  total_vectors: z.number().int(),
  pending_index: z.number().int(),
  jobs: ByStatus,
  workers: z.record(z.string(), z.unknown()),
  metrics: RealtimeMetrics,
  uptime_s: z.number(),
});
export type LiveStats = z.infer<typeof LiveStats>;

export const ServerMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('initial_state'), stats: LiveStats, ...base }),
  z.object({ type: z.literal('stats_update'), stats: LiveStats, ...base }),
  z.object({
    type: z.literal('job_created'),
    job_id: z.number(),
    job_type: z.string(),
    status: z.string(),
    priority: z.string(),
    ...base,
  }),
  z.object({
    type: z.literal('job_progress'),
    job_id: z.number(),
    progress: z.number(),
    stage: z.string().nullable(),
    stats: z.record(z.string(), z.unknown()),
    segmentation_method: z.string().nullable(),
    last_fallback_reason: z.string().nullable(),
    ...base,
  }),
  z.object({
    type: z.literal('job_completed'),
    job_id: z.number(),
    segments_created: z.number(),
    ...base,
  }),
  z.object({
    type: z.literal('job_failed'),
    job_id: z.number(),
    error: z.string().nullable(),
    ...base,
  }),
  z.object({ type: z.literal('job_cancelled'), job_id: z.number(), ...base }),
  z.object({ type: z.literal('job_deleted'), job_id: z.number(), ...base }),
  z.object({
    type: z.literal('segment_progress'),
    job_id: z.number().nullable(),
    processed: z.number(),
    total: z.number(),
    stage: z.string(),
    ...base,
  }),
  z.object({
    type: z.literal('log_entry'),
    level: z.string(),
    component: z.string(),
    message: z.string(),
    ...base,
  }),
  z.object({ type: z.literal('metrics.update'), ...RealtimeMetrics.shape, ...base }),
  z.object({ type: z.literal('settings.updated'), section: z.string(), ...base }),
  z.object({ type: z.literal('model_warning'), message: z.string(), ...base }),
  /** A model's install, uninstall or load moved on: its status and progress (0–100). */
  z.object({
    type: z.literal('model_progress'),
    model_id: z.number(),
    status: z.string(),
    progress: z.number(),
    message: z.string(),
    ...base,
  }),
  /** A watched evaluation set's run fell beyond the drop threshold in one mode (issue 27). */
  z.object({
    type: z.literal('quality_alert'),
    alert_id: z.number(),
    set_id: z.number(),
    set_name: z.string(),
    run_id: z.number(),
    mode: z.string(),
    fall: z.number(),
    lost_count: z.number(),
    ...base,
  }),
  z.object({ type: z.literal('quality_alert_dismissed'), alert_id: z.number(), ...base }),
  z.object({ type: z.literal('dropped'), count: z.number(), ...base }),
  z.object({ type: z.literal('error'), message: z.string(), ...base }),
  z.object({ type: z.literal('pong'), ...base }),
]);
export type ServerMessage = z.infer<typeof ServerMessage>;
export type ServerMessageType = ServerMessage['type'];
export type ServerMessageOf<T extends ServerMessageType> = Extract<ServerMessage, { type: T }>;
/** What a message of type T carries besides its type and timestamp. */
export type ServerMessageFields<T extends ServerMessageType> = Omit<
  ServerMessageOf<T>,
  'type' | 'timestamp'
>;

export const ClientMessage = z.discriminatedUnion('type', [
  z.object({ type: z.literal('request_update') }),
  z.object({ type: z.literal('ping') }),
]);
export type ClientMessage = z.infer<typeof ClientMessage>;
export type ClientMessageType = ClientMessage['type'];
