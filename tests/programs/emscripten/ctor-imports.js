// Emscripten JavaScript library for the import test.mode of ctor_fails.cpp
// (see test-imports.js): a stub in Emscripten's "env", never called.
mergeInto(LibraryManager.library, {
  mode: function () { throw new Error('test.mode is provided by the test through Runtime.load'); },
});
