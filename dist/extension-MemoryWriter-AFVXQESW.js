import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{A as a,B as b}from"./extension-chunk-FPTV6BNT.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-QHSQM425.js";import"./extension-chunk-ZZDTP5XX.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-AFVXQESW.js.map
