import { createRequire as __pmCreateRequire } from 'node:module'; const require = __pmCreateRequire(import.meta.url);
import{Qg as p,if as e}from"./pm-chunk-chunk-H7JGJB5H.js";var E=1,u=2,l=t=>e(()=>{(process.exitCode??0)<t&&(process.exitCode=t)}),d=t=>e(()=>process.stdout.write(`${JSON.stringify(t,null,2)}
`)),h=(t="")=>e(()=>process.stdout.write(`${t}
`)),m=t=>e(()=>process.stderr.write(`pm: ${t.split(`
`)[0]}
`)),y=t=>p(m(t),l(u)),g=(t,r)=>{let n=Math.max(0,Math.floor((r-t)/1e3));return n<60?"now":n<3600?`${Math.floor(n/60)}m`:n<86400?`${Math.floor(n/3600)}h`:`${Math.floor(n/86400)}d`},$=(t,r)=>{let n=g(t,r);return n==="now"?"just now":`${n} ago`},b=t=>t<=0?"today":`${t} day${t===1?"":"s"} ago`,M=(t,r,n=process.stdout.columns??120)=>{let i=[t,...r],f=t.map((c,o)=>Math.max(...i.map(s=>(s[o]??"").length)));return i.map(c=>{let o=c.map((s,a)=>a===c.length-1?s:s.padEnd(f[a]??0)).join("  ");return o.length>n?`${o.slice(0,Math.max(10,n-1)).replace(/[\uD800-\uDBFF]$/,"")}\u2026`:o}).join(`
`)};export{E as a,u as b,l as c,d,h as e,m as f,y as g,g as h,$ as i,b as j,M as k};
//# sourceMappingURL=pm-chunk-chunk-Z7EDV3P7.js.map
