import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{A as b,z as a}from"./extension-chunk-5LOBJCZB.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-LJRL5YW7.js";import"./extension-chunk-N4CZYYWW.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-DWKQPXDZ.js.map
