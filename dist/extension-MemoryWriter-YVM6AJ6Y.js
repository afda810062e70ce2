import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{C as a,D as b}from"./extension-chunk-6BESPR2Q.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-N2A3Q65Z.js";import"./extension-chunk-22TAQMVP.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{b as MemoryWriter,a as makeMemoryWriter};
//# sourceMappingURL=extension-MemoryWriter-YVM6AJ6Y.js.map
