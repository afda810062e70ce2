import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a,b}from"./extension-chunk-JO3OFQ7X.js";import"./extension-chunk-423PY2OB.js";import"./extension-chunk-ORAOPDJ3.js";import"./extension-chunk-OYQNXFKQ.js";import"./extension-chunk-LDMBWPPX.js";import"./extension-chunk-Y2M3U6WG.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-6D3QGZUG.js.map
