import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as a,D as b}from"./extension-chunk-FG46LGBR.js";import"./extension-chunk-VBWLKUBK.js";import"./extension-chunk-QQF5WCSS.js";import"./extension-chunk-LZZZJHLB.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-AIVT262O.js.map
