import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-5AW223OA.js";import"./extension-chunk-VBWLKUBK.js";import"./extension-chunk-OD7SJD2M.js";import"./extension-chunk-KJ5U6MNE.js";import"./extension-chunk-D7IURK5U.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-FX5YGQ2B.js.map
