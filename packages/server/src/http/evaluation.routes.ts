import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  BeirImportSummary,
  CreateEvaluationSet,
  ErrorBody,
  EvaluationQueryInput,
  EvaluationQueryParams,
  EvaluationRun,
  EvaluationRunList,
  EvaluationRunListQuery,
  EvaluationRunParams,
  EvaluationSet,
  EvaluationSetList,
  EvaluationSetParams,
  EvaluationSetVersion,
  EvaluationVersionList,
  EvaluationVersionParams,
  MAX_BEIR_FILE_BYTES,
  QueryResultList,
  QueryResultListQuery,
  ReplaceJudgments,
  RunComparison,
  RunComparisonQuery,
  StartEvaluationRun,
  UpdateEvaluationSet,
} from '@adam/contracts';
import { AppError } from '../lib/errors.js';
import { readBeirUpload, type BeirPart } from '../services/beir-files.js';
import type { EvaluationService } from '../services/evaluation.service.js';

const tags = ['evaluation'];
/** A set's JSON body holds up to 5000 queries with their judgments: more than the 2 MB default. */
const SET_BODY_LIMIT = 16 * 1024 * 1024;
/** The BEIR upload's parts: queries, a few qrels splits, the corpus, and three fields. */
const BEIR_LIMITS = {
  fileSize: MAX_BEIR_FILE_BYTES,
  files: 6,
  fields: 3,
  fieldSize: 4096,
  parts: 9,
  headerPairs: 100,
};

/**
 * Evaluation sets, BEIR imports, runs and their comparison (issue 27). Anyone may read;
 * operators edit sets and start runs; deleting a set is the administrator's.
 */
export function evaluationRoutes(evaluations: EvaluationService) {
  return async (root: FastifyInstance) => {
    // The multipart parser for the BEIR upload only, in this scope.
    await root.register(fastifyMultipart, { limits: BEIR_LIMITS });
    const app = root.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/evaluation/sets',
      { config: { role: 'viewer' }, schema: { tags, response: { 200: EvaluationSetList } } },
      () => evaluations.listSets(),
    );
    app.post(
      '/evaluation/sets',
      {
        config: { role: 'operator' },
        bodyLimit: SET_BODY_LIMIT,
        schema: { tags, body: CreateEvaluationSet, response: { 201: EvaluationSet } },
      },
      async (req, reply) => reply.code(201).send(evaluations.createSet(req.body)),
    );
    app.get(
      '/evaluation/sets/:id',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          description: 'The set with its latest version and that version’s queries.',
          params: EvaluationSetParams,
          response: { 200: EvaluationSetVersion, 404: ErrorBody },
        },
      },
      (req) => evaluations.getVersion(req.params.id),
    );
    app.patch(
      '/evaluation/sets/:id',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          params: EvaluationSetParams,
          body: UpdateEvaluationSet,
          response: { 200: EvaluationSet, 404: ErrorBody },
        },
      },
      (req) => evaluations.updateSet(req.params.id, req.body),
    );
    app.delete(
      '/evaluation/sets/:id',
      {
        config: { role: 'administrator' },
        schema: {
          tags,
          params: EvaluationSetParams,
          response: { 204: z.null(), 404: ErrorBody, 409: ErrorBody },
        },
      },
      async (req, reply) => {
        evaluations.deleteSet(req.params.id);
        return reply.code(204).send(null);
      },
    );
    app.get(
      '/evaluation/sets/:id/versions',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          params: EvaluationSetParams,
          response: { 200: EvaluationVersionList, 404: ErrorBody },
        },
      },
      (req) => evaluations.listVersions(req.params.id),
    );
    app.get(
      '/evaluation/sets/:id/versions/:number',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          params: EvaluationVersionParams,
          response: { 200: EvaluationSetVersion, 404: ErrorBody },
        },
      },
      (req) => evaluations.getVersion(req.params.id, req.params.number),
    );
    app.post(
      '/evaluation/sets/:id/queries',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          description:
            'Adds a query with its judgments (snippet or source ids and grades 0–3, as a search marked them): a new version.',
          params: EvaluationSetParams,
          body: EvaluationQueryInput,
          response: { 201: EvaluationSetVersion, 404: ErrorBody },
        },
      },
      async (req, reply) => reply.code(201).send(evaluations.addQuery(req.params.id, req.body)),
    );
    app.put(
      '/evaluation/sets/:id/queries/:key/judgments',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          description: 'Replaces a query’s judgments: a new version.',
          params: EvaluationQueryParams,
          body: ReplaceJudgments,
          response: { 200: EvaluationSetVersion, 404: ErrorBody },
        },
      },
      (req) => evaluations.replaceJudgments(req.params.id, req.params.key, req.body.judgments),
    );
    app.delete(
      '/evaluation/sets/:id/queries/:key',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          description: 'Removes a query: a new version.',
          params: EvaluationQueryParams,
          response: { 200: EvaluationSetVersion, 404: ErrorBody },
        },
      },
      (req) => evaluations.removeQuery(req.params.id, req.params.key),
    );

    app.post(
      '/evaluation/sets/import',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          consumes: ['multipart/form-data'],
          description:
            'A set from the BEIR layout, as multipart/form-data: the files queries.jsonl, one or more qrels .tsv (header query-id, corpus-id, score) and optionally corpus.jsonl; the fields name, description and import_corpus (true: the corpus is imported as snippets by an import_snippets job). Every line is checked first: a bad one answers 422 naming file, line and field, and nothing is stored. Each file at most 64 MB (413).',
          response: { 201: BeirImportSummary, 413: ErrorBody, 415: ErrorBody, 422: ErrorBody },
        },
      },
      async (req, reply) => {
        if (!req.isMultipart())
          throw new AppError(
            415,
            'A BEIR import is a multipart/form-data body with queries.jsonl and the qrels files in it',
          );
        try {
          const upload = await readBeirUpload(req.parts() as AsyncIterable<BeirPart>);
          return reply.code(201).send(await evaluations.importBeir(upload));
        } catch (e) {
          // A refused upload is not read to its end: the connection closes after the answer.
          reply.header('connection', 'close');
          throw e;
        }
      },
    );

    app.post(
      '/evaluation/runs',
      {
        config: { role: 'operator' },
        schema: {
          tags,
          description:
            'Scores a version of a set (its latest by default) in each mode asked: an evaluation_run job.',
          body: StartEvaluationRun,
          // 409: hybrid_rerank asked for with no reranker configured.
          response: {
            202: EvaluationRun,
            404: ErrorBody,
            409: ErrorBody,
            422: ErrorBody,
            429: ErrorBody,
          },
        },
      },
      async (req, reply) => reply.code(202).send(evaluations.startRun(req.body)),
    );
    app.get(
      '/evaluation/runs',
      {
        config: { role: 'viewer' },
        schema: { tags, querystring: EvaluationRunListQuery, response: { 200: EvaluationRunList } },
      },
      (req) => evaluations.listRuns(req.query.set_id),
    );
    app.get(
      '/evaluation/runs/compare',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          querystring: RunComparisonQuery,
          response: { 200: RunComparison, 404: ErrorBody, 409: ErrorBody },
        },
      },
      (req) => evaluations.compare(req.query.base, req.query.head),
    );
    app.get(
      '/evaluation/runs/:id',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          params: EvaluationRunParams,
          response: { 200: EvaluationRun, 404: ErrorBody },
        },
      },
      (req) => evaluations.getRun(req.params.id),
    );
    app.get(
      '/evaluation/runs/:id/results',
      {
        config: { role: 'viewer' },
        schema: {
          tags,
          params: EvaluationRunParams,
          querystring: QueryResultListQuery,
          response: { 200: QueryResultList, 404: ErrorBody },
        },
      },
      (req) => evaluations.results(req.params.id, req.query.mode),
    );
  };
}
