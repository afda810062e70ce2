import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{i as a,j as b,k as c,l as d,m as e,n as f}from"./pm-chunk-chunk-P2TJIT44.js";import"./pm-chunk-chunk-EMH7HCXR.js";import"./pm-chunk-chunk-4AR3XRNR.js";import"./pm-chunk-chunk-7ROIYRMM.js";import"./pm-chunk-chunk-QEQYTJYH.js";import"./pm-chunk-chunk-FRVK4RVN.js";import"./pm-chunk-chunk-LY4OJAPP.js";export{b as activeRepo,f as commitAll,e as commitStaged,c as initRepo,d as reconcile,a as repoOf};
//# sourceMappingURL=pm-chunk-historyRepo-BSEB6LCT.js.map
