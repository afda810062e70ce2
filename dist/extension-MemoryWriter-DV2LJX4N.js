import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as a,D as b}from"./extension-chunk-O2GMGISZ.js";import"./extension-chunk-VBWLKUBK.js";import"./extension-chunk-ZYI3QREG.js";import"./extension-chunk-M6KDLXM7.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-DV2LJX4N.js.map
