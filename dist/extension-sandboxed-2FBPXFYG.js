import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-44EMTBCO.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-JVUBVCDA.js";import"./extension-chunk-CAKMSAPD.js";import"./extension-chunk-EA6RJCDX.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-2FBPXFYG.js.map
