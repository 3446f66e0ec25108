// Response serialization from the routes' zod schemas. The schema, as JSON Schema, compiles
// to a fast-json-stringify function: output is shaped by the contract (unknown fields
// dropped, required ones enforced) without running zod on every answer, which alone cost
// ~20 µs a request. Under tests (`validate`) every answer is also encoded by zod and the two
// must agree byte for byte, so a route drifting from its contract, or the fast path drifting
// from zod, fails loudly.
import fastJson from 'fast-json-stringify';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

type CompilerInput = Parameters<typeof zodSerializerCompiler>[0];
type Serialize = (data: unknown) => string;

function compileFast(schema: z.ZodType): Serialize | null {
  try {
    const json = z.toJSONSchema(schema, { io: 'output', target: 'draft-7', unrepresentable: 'any' });
    return fastJson(json as Parameters<typeof fastJson>[0]) as Serialize;
  } catch {
    return null; // a schema JSON Schema cannot express: the zod path serves it
  }
}

export function createSerializerCompiler({ validate }: { validate: boolean }) {
  return (input: CompilerInput): Serialize => {
    const exact = zodSerializerCompiler(input) as Serialize;
    const fast = input.schema instanceof z.ZodType ? compileFast(input.schema) : null;
    if (!fast) return exact;
    if (!validate) return fast;
    return (data) => {
      const out = exact(data);
      if (fast(data) !== out) throw new Error(`fast serializer disagrees with the zod schema for ${input.method} ${input.url}`);
      return out;
    };
  };
}
