import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-F3XV7VBP.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-3GQFXSSG.js";import"./extension-chunk-R23GAHHV.js";import"./extension-chunk-2MKCSE7E.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-YZWRHNGI.js.map
