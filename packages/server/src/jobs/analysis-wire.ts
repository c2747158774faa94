import type { AnalyzeResult } from '../pipeline/index.js';

/** An analysis as JSON: each segment's vector as base64 of its float32 bytes. */
export type WireAnalysis = Omit<AnalyzeResult, 'segments'> & {
  segments: (Omit<AnalyzeResult['segments'][number], 'vector'> & { vector: string })[];
};

const vecToB64 = (v: Float32Array) =>
  Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
const b64ToVec = (s: string) => {
  const b = Buffer.from(s, 'base64');
  return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
};

export function analysisToWire(a: AnalyzeResult): WireAnalysis {
  return { ...a, segments: a.segments.map((s) => ({ ...s, vector: vecToB64(s.vector) })) };
}

export function analysisFromWire(a: WireAnalysis): AnalyzeResult {
  return { ...a, segments: a.segments.map((s) => ({ ...s, vector: b64ToVec(s.vector) })) };
}
