import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-MXBUGP5V.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-ODVYSGAU.js";import"./extension-chunk-DRHTHM3T.js";import"./extension-chunk-2MKCSE7E.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-SDBOT3DD.js.map
