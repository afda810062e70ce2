import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{a}from"./extension-chunk-NSHTWIJJ.js";import"./extension-chunk-D7SFY5T2.js";import"./extension-chunk-MNVHR6LT.js";import"./extension-chunk-FGE4XX3U.js";import"./extension-chunk-SUHX4U3T.js";import"./extension-chunk-4AJF5N5E.js";import"./extension-chunk-FYHAR4LF.js";export{a as toolCallWithoutSession};
//# sourceMappingURL=extension-ToolGuard-WRUQNGQ6.js.map
