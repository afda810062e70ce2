import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{h as a,i as b,j as c,k as d}from"./extension-chunk-F2BTFJYB.js";import"./extension-chunk-ZCWDGCSG.js";import"./extension-chunk-3ECC5NWN.js";import"./extension-chunk-KJ5U6MNE.js";import"./extension-chunk-D7IURK5U.js";import"./extension-chunk-UNVSKE3H.js";import"./extension-chunk-FYHAR4LF.js";export{c as loadWhenUnavailable,b as makeSandboxedTools,d as sandboxStatusLine,a as uncheckedNotice};
//# sourceMappingURL=extension-sandboxed-4YQMT6JP.js.map
