/**
 * The files an ONNX model needs from its hub repository, in the layout transformers.js reads
 * (`onnx/model.onnx` for the fp32 weights). Every model type uses the same set: embedding
 * (feature extraction), spacy (token classification), emotion / sentiment (text
 * classification) and transformer (feature extraction). transformers.js v4 loads a tokenizer
 * only when tokenizer_config.json exists, so that file is required too.
 */
export const REQUIRED_MODEL_FILES = [
  'config.json',
  'tokenizer.json',
  'tokenizer_config.json',
  'onnx/model.onnx',
] as const;
/** Fetched when the repository has them; a model works without. */
export const OPTIONAL_MODEL_FILES = ['special_tokens_map.json'] as const;
