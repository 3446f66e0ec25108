// A route's declaration — what auth reads (`config`: its scope) and what validation and the
// OpenAPI document read (`schema`) — as a named value beside its route plugin, so the plugin
// itself reads as the list of its operations and their handlers. The identity function gives
// the object literal its contextual type (problem names and answer codes keep their literal
// types) without widening what Fastify infers from the zod schemas.
import type { FastifyContextConfig, FastifySchema } from 'fastify';

export const operation = <O extends { config?: FastifyContextConfig; schema: FastifySchema }>(o: O): O => o;
