/**
 * The page size a tool takes. A use case's request allows any page a workspace may
 * return; one tool result must also stay under the server's byte budget, so a tool takes
 * its request with `limit` bounded lower. Everything else is the request as it is, under
 * the same name, so a bad value is refused with the same error the CLI gives.
 */
import { type, type Type } from "arktype";
import { defineRequest, requestName } from "../../application/requests/request-schema.ts";

/** Hard maxima per call, whatever the workspace configuration allows. */
export const MAX_LIST_LIMIT = 200;
export const MAX_TRACE_LIMIT = 1000;

export const listLimit = type(`1 <= number.integer <= ${MAX_LIST_LIMIT}`).describe(
  `a page size from 1 to ${MAX_LIST_LIMIT}`,
);
export const longLimit = type(`1 <= number.integer <= ${MAX_TRACE_LIMIT}`).describe(
  `a page size from 1 to ${MAX_TRACE_LIMIT}`,
);
/** A recipe's page, named for what it pages over ("clusters", "files", …). */
export const recipeLimit = (items: string) =>
  type(`1 <= number.integer <= ${MAX_TRACE_LIMIT}`).describe(
    `${items} per page, 1 to ${MAX_TRACE_LIMIT}`,
  );

/**
 * `request` with its optional `limit` replaced by `limit`: still closed, still named as the
 * request.
 */
export function toolPage<T extends Type<{ limit?: number }>>(request: T, limit: Type<number>): T {
  const name = requestName(request);
  if (name === undefined) throw new Error("toolPage takes a request defined with defineRequest");
  // merge() replaces the key; it leaves undeclared keys allowed, so they are refused again.
  const bounded = (request as unknown as Type<object>)
    .merge({ "limit?": limit } as never)
    .onUndeclaredKey("reject");
  return defineRequest(name, bounded) as unknown as T;
}
