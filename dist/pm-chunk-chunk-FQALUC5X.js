import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{b as y,c as i}from"./pm-chunk-chunk-EMH7HCXR.js";import{Fg as a,lg as s,rf as n,tf as S}from"./pm-chunk-chunk-H7JGJB5H.js";import{join as o}from"node:path";var p=(e,t)=>e.readRegularFile(t,64*1024).pipe(s(r=>S(()=>JSON.parse(new TextDecoder().decode(r.bytes)))),a(()=>{})),l=(e,t)=>p(e,o(t.gitDir,y)),d=(e,t)=>p(e,o(t.gitDir,i)),g=(e,t,r)=>e.writeFile(o(t.gitDir,i),`${JSON.stringify(r)}
`).pipe(n);export{l as a,d as b,g as c};
//# sourceMappingURL=pm-chunk-chunk-FQALUC5X.js.map
