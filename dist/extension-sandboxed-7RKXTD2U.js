import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-NJEA47XU.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-E3DLNTDT.js";import"./extension-chunk-LJRL5YW7.js";import"./extension-chunk-N4CZYYWW.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-7RKXTD2U.js.map
