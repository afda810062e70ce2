import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-WR5AO5LJ.js";import"./extension-chunk-VBWLKUBK.js";import"./extension-chunk-XLX56T3Y.js";import"./extension-chunk-HVRXV66A.js";import"./extension-chunk-E7FVJSDL.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-DH5TWC2O.js.map
