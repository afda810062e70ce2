import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-MSTVCMHQ.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-VKMU35PH.js";import"./extension-chunk-U3IEYLN4.js";import"./extension-chunk-3T6DHTTG.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-FK4QGL4L.js.map
