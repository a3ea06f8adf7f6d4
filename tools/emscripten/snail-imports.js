// An Emscripten JavaScript library (emcc --js-library) for snail-core
// programs linked with Emscripten's generated JavaScript (docs/emscripten.md).
//
// Emscripten 3.1.6 treats every function a module imports as a symbol of its
// JavaScript library, whatever the import's module: without these entries,
// `snail.sleep` would be an "undefined symbol: sleep" at link time. The
// program imports them from module "snail", which snail-core's Runtime.load
// provides; Emscripten puts these stubs in its own "env" object, where nothing
// calls them. Keep the list equal to the imports of module "snail" in
// docs/abi.md (tests/node/emscripten.test.mjs checks it).
(function () {
  var names = [
    'sleep', 'yield', 'join', 'dispatch', 'result', 'release', 'cancel_requested', 'cancel',
    'cancel_tree', 'shield_begin', 'shield_end',
    'module_load', 'module_function',
    'event_wait', 'storage_get', 'storage_put', 'storage_delete', 'storage_list', 'fetch',
    'frame_wait', 'idle_wait', 'file_read', 'file_write', 'stdin_line',
  ];
  var library = {};
  names.forEach(function (name) {
    library[name] = new Function(
      "throw new Error('" + name + " is the import snail." + name +
      ", which snail-core provides: load this program with Runtime.load(wasm, { emscripten: factory })');");
  });
  mergeInto(LibraryManager.library, library);
})();
