// Emscripten JavaScript library (emcc --js-library) for the imports of module
// "test" of tasks.cpp: Emscripten 3.1.6 needs a library symbol for every
// imported function, whatever its module. The test's Runtime.load provides
// the real ones; these stubs in Emscripten's "env" are never called.
mergeInto(LibraryManager.library, {
  event: function () { throw new Error('test.event is provided by the test through Runtime.load'); },
  op: function () { throw new Error('test.op is provided by the test through Runtime.load'); },
});
