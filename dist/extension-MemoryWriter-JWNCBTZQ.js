import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{A as b,z as a}from"./extension-chunk-DZKIXCLD.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-R23GAHHV.js";import"./extension-chunk-2MKCSE7E.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-JWNCBTZQ.js.map
