import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as a,D as b}from"./extension-chunk-3VJPRF7U.js";import"./extension-chunk-3POHDPBL.js";import"./extension-chunk-TTT5AKLX.js";import"./extension-chunk-MK24DTH4.js";import"./extension-chunk-JTHE4BKZ.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-FGZCQBP2.js.map
