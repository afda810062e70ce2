import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as a,D as b}from"./extension-chunk-C6SZ3YO2.js";import"./extension-chunk-VXAEXHST.js";import"./extension-chunk-7VKJIUGT.js";import"./extension-chunk-LDMBWPPX.js";import"./extension-chunk-4AJF5N5E.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-OQJQGVP3.js.map
