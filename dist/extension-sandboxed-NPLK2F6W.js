import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-SXIPDWEG.js";import"./extension-chunk-VBWLKUBK.js";import"./extension-chunk-54Z3TYEV.js";import"./extension-chunk-QQF5WCSS.js";import"./extension-chunk-LZZZJHLB.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-NPLK2F6W.js.map
