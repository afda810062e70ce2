import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
var t=r=>[...r.matchAll(/\[[^\]\n]*\]\(([^)\s]*)[^)]*\)/g)].map(n=>n[1]??"").filter(n=>n!=="");export{t as a};
//# sourceMappingURL=extension-chunk-PKEB4NR5.js.map
