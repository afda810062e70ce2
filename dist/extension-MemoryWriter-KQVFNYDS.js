import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as a,D as b}from"./extension-chunk-CU7CWMZU.js";import"./extension-chunk-3POHDPBL.js";import"./extension-chunk-7VKJIUGT.js";import"./extension-chunk-LDMBWPPX.js";import"./extension-chunk-4AJF5N5E.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-KQVFNYDS.js.map
