import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as a,D as b}from"./extension-chunk-UKLR62P6.js";import"./extension-chunk-OWQJPT3L.js";import"./extension-chunk-7VKJIUGT.js";import"./extension-chunk-LDMBWPPX.js";import"./extension-chunk-4AJF5N5E.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-FBMM3QXR.js.map
