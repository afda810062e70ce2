import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{A as b,z as a}from"./extension-chunk-BLEC6GAX.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-JJKZIBY5.js";import"./extension-chunk-2MKCSE7E.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-SJJYHUMK.js.map
