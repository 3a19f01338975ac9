/**
 * The role part of a conformance dispatch (layer 1, pure): the `worker`, `parameters` and role
 * context a repair or falsify case sends, built by the runtime's own `roleFields` (the dispatch
 * builder of src/runtime) from the same `WorkerInput` members the cycle would pass — so a worker
 * rated here receives exactly what `handoff run` sends it in that role.
 */
import { relative } from 'node:path';
import type { Dispatch } from '../contract/index.js';
import { falsificationParameters } from '../cycle/falsification.js';
import type { TargetInfo } from '../cycle/types.js';
import { roleFields } from '../runtime/dispatch-builder.js';
import type { ConformanceRole } from './report-schema.js';

/** The goal of the case file's `theorem t` ({@link FENCED_HEADER} in case-plan.ts). */
const GOAL = 'n + 0 = n';

/**
 * The falsification policy a conformance falsify case carries (the cycle's default).
 *
 * @example
 * ```ts
 * negationViolation(before, after, 't', CONFORMANCE_FALSIFY_POLICY);
 * ```
 */
export const CONFORMANCE_FALSIFY_POLICY = 'salvage' as const;

/**
 * `dispatch` sent in `role`: for `fill` unchanged; for `repair` and `falsify` its `worker` and
 * `parameters` replaced, and `context.role`/`context.role_parameters` set, exactly as the
 * runtime's `roleFields` builds them for the target `dispatch.target` (the first owned file, a
 * line of `theorem t`) of a project rooted at `projectRoot`. The repair error is an `unsolved
 * goals` at the target; the falsify policy is {@link CONFORMANCE_FALSIFY_POLICY}.
 *
 * @example
 * ```ts
 * const d = withRole(dispatch, 'repair', root);
 * d.worker; // 'proof-repair'
 * d.parameters.error; // { errorType: 'unsolved goals', file: 'f0/a.lean', line: 2, … }
 * ```
 */
export function withRole(dispatch: Dispatch, role: ConformanceRole, projectRoot: string): Dispatch {
  if (role === 'fill') return dispatch;
  const m = /^(.*):(\d+)$/.exec(dispatch.target);
  const file = relative(projectRoot, m?.[1] ?? dispatch.target);
  const line = Number(m?.[2] ?? 1);
  const target: TargetInfo = { id: `${file}:${line}`, file, line, goal: GOAL };
  const parameters =
    role === 'repair'
      ? {
          error: {
            errorType: 'unsolved goals',
            message: `unsolved goals\nn : Nat\n⊢ ${GOAL}`,
            file,
            line,
            goal: GOAL,
            localContext: ['n : Nat'],
          },
        }
      : falsificationParameters(CONFORMANCE_FALSIFY_POLICY, target, 't');
  const f = roleFields({ role, parameters, target, priorFailure: null });
  return {
    ...dispatch,
    worker: f.worker,
    parameters: f.parameters,
    context: { ...dispatch.context, ...f.context },
  } as Dispatch;
}
