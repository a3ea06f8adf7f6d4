// Code of its own for the closures of each runtime's wait path (internal).
//
// An engine optimizes a function for what its calls have seen so far, and
// keeps what it saw with the function's source, not with each closure made
// from it. The closures of a wait (the lent wait, the start of an operation)
// are made once per suspending import of each runtime, from the same source:
// with one runtime and one import, V8 compiles them for that runtime alone
// (the objects they close over become constants, the operation they call is
// known and inlined); with a second runtime or import in the process, it
// compiles them for all at once, and every wait pays for it (bench/analysis.md,
// *Code of its own*). A copy of the function made from its source text with
// `new Function` is a source of its own to the engine, so each runtime's
// waits are compiled for that runtime alone, however many run in the process.
//
// Where strings may not be evaluated (a Content-Security-Policy without
// 'unsafe-eval', Trusted Types), the first copy is refused and every later
// one is the shared function itself: the same code, compiled for all. A
// runtime loaded with `ownCode: false` asks for none.
import { InternalError } from './errors.mjs';

/** Whether copies are made: until the first one is refused. */
let copying = true;
/** Copies made so far, which names each in stack traces (and keeps each source its own). */
let copies = 0;

/**
 * A copy of `make` with code of its own, or `make` itself where strings may
 * not be evaluated. The copy is made from `make`'s source text at the top
 * level, so `make` must read no name of its module: only its parameters,
 * what it declares and globals (what a module gives it comes in as
 * arguments). Then a bundler that renames or minifies the module renames
 * `make`'s names consistently, and the copy of its output works as well.
 * @template {(...args: any[]) => any} F
 * @param {F} make  a function declaration or expression
 * @param {boolean} [wanted]  false: `make` itself (the runtime's ownCode option)
 * @returns {F}
 */
export function ownCopy(make, wanted = true) {
  if (!wanted || !copying) return make;
  // The name and number make every source text new, so that no engine
  // hands back code it compiled for an earlier copy.
  const source = `return (${Function.prototype.toString.call(make)});\n//# sourceURL=snail-core/${make.name}/${copies + 1}`;
  let copy;
  try {
    copy = new Function(source)();
  } catch (error) {
    // A copy that does not parse is a bug here, not a policy of the page.
    if (error instanceof SyntaxError) throw new InternalError(`the copy of ${make.name} does not parse: ${error.message}`);
    copying = false;
    return make;
  }
  copies++;
  return copy;
}

/** How many copies were made (the tests' view). */
export const ownCopies = () => ({ copies, copying });
