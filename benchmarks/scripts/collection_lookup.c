/*
 * collection_lookup.c: the engine's share of MutableSet `contains` and List
 * index access at 1M entries, in the key shapes of the collections tree
 * (docs/OBJECTS.md): set entries keyed by an 8-byte big-endian id and an
 * Int's 8 stored bytes (cs_get, half of them absent), list entries by an
 * 8-byte id, a length byte and a 3-byte big-endian counter
 * (cs_cursor_seek_index at random ranks, and cs_get of random elements);
 * map entries by an 8-byte id and the key's UTF-8, "k0", "k1", ... put in
 * that order (cs_get of random keys, all present; the value is the entry as
 * the field holds it: u32 key length, key, a varint); and an index on a
 * String property, 0x01 "n<i>" 0x00 0x01 ++ object key (u64 BE) -> empty
 * (KeyEncoding.swift), probed by cs_cursor_get CS_SEEK on a random name's
 * prefix, as an indexed-String lookup's first step; and an object tree,
 * u64 BE keys -> 48-byte records, probed by cs_get (a pk lookup).
 * Modes zigzag and ordered: a MutableSet<Int> as the library keys it, id ++
 * the element's varint (zigzag: object format 8; ordered, which sorts as
 * the numbers: format 9), filled with 0..N-1 in increasing order, probed
 * with random values in 0..2N-1 (half absent); zigzag-random and
 * ordered-random: N random values below 2^32 inserted in that (random)
 * order, probed half with members, half with absent values.
 * In-memory env, as the collection benchmark. Build it against any engine
 * revision to compare:
 *   clang -std=c11 -O2 -g -gdwarf-4 -D_GNU_SOURCE -I<tree>/Sources/CStorage/include \
 *     -I<tree>/Sources/CStorage -o collection_lookup collection_lookup.c \
 *     <tree>/Sources/CStorage/[a-z]*.c -lpthread -lm
 *   ./collection_lookup [entries] [ops] [set,list,map,idx,obj,zigzag,ordered,zigzag-random,ordered-random] [reps]
 * Instructions per operation of one phase (callgrind):
 *   valgrind --tool=callgrind --toggle-collect=run_seek ./collection_lookup 1000000 200000 list 1
 */
#include "cstorage.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

static double now(void){struct timespec ts;clock_gettime(CLOCK_MONOTONIC,&ts);return ts.tv_sec+ts.tv_nsec*1e-9;}
/* CPU time too: on a shared machine wall time includes other processes' turns. */
static double cpu(void){struct timespec ts;clock_gettime(CLOCK_PROCESS_CPUTIME_ID,&ts);return ts.tv_sec+ts.tv_nsec*1e-9;}
static double C0;
static uint64_t rng=88172645463325252ull;
static uint64_t xr(void){rng^=rng<<13;rng^=rng>>7;rng^=rng<<17;return rng;}
static void be64(uint8_t*p,uint64_t v){for(int i=7;i>=0;i--){p[i]=(uint8_t)v;v>>=8;}}
#define CK(x) do{int _r=(x); if(_r){fprintf(stderr,"%s: %d\n",#x,_r);exit(1);}}while(0)
static cs_txn*T; static cs_tree SET,LIST,MAP,IDX,OBJ; static uint64_t *ELEMS; static size_t N; static uint64_t SUM;
__attribute__((noinline)) void run_set(size_t ops){ uint8_t k[16]; for(size_t i=0;i<ops;i++){ be64(k,7); uint64_t e = ELEMS[xr()%N]; if(i&1) e^=1ull<<63; memcpy(k+8,&e,8); cs_val val; int rc=cs_get(T,SET,(cs_val){k,16},&val); if(rc==0) SUM+=*(const uint8_t*)val.data; } }
__attribute__((noinline)) void run_seek(cs_cursor*c,size_t ops){ for(size_t i=0;i<ops;i++){ cs_val kk,vv; CK(cs_cursor_seek_index(c,xr()%N,&kk,&vv)); SUM+=*(const uint8_t*)vv.data; } }
__attribute__((noinline)) void run_listget(size_t ops){ uint8_t k[16]; for(size_t i=0;i<ops;i++){ uint64_t j=xr()%N+1; be64(k,9); k[8]=3; k[9]=(uint8_t)(j>>16); k[10]=(uint8_t)(j>>8); k[11]=(uint8_t)j; cs_val vv; CK(cs_get(T,LIST,(cs_val){k,12},&vv)); SUM+=*(const uint8_t*)vv.data; } }
/* The library's two Int varints (Storage/TreeElementEncoding.swift, OrderedVarint.swift). */
static int zigzag(uint8_t*p,int64_t v){uint64_t z=((uint64_t)v<<1)^(uint64_t)(v>>63); int n=0; while(z>=0x80){p[n++]=(uint8_t)z|0x80; z>>=7;} p[n++]=(uint8_t)z; return n;}
static int ordered(uint8_t*p,int64_t v){
    if(v>=-32&&v<=206){p[0]=(uint8_t)(v+32+9);return 1;}
    int pos=v>206; uint64_t d=pos?(uint64_t)v-207:(uint64_t)-33-(uint64_t)v; int n=1;
    while(n<8&&d>=(1ull<<(8*n))){d-=1ull<<(8*n);n++;}
    uint64_t b=pos?d:~d; p[0]=pos?(uint8_t)(0xF7+n):(uint8_t)(9-n);
    for(int i=0;i<n;i++)p[n-i]=(uint8_t)(b>>(8*i));
    return n+1;
}
typedef int (*encoder)(uint8_t*,int64_t);
/* "zigzag" is part of "zigzag-random": a shape runs when the list names it exactly. */
static int named(const char*list,const char*name){ char want[64],have[256]; snprintf(want,sizeof want,",%s,",name); snprintf(have,sizeof have,",%s,",list); return strstr(have,want)!=0; }
static const char *SHAPES[4]={"zigzag","ordered","zigzag-random","ordered-random"};
static cs_tree SHAPE_TREE[4]; static uint64_t *RANDOM;
static int64_t shape_value(int shape,size_t i){ return shape<2? (int64_t)i : (int64_t)RANDOM[i]; }
static void put_shape(cs_txn*t,int shape,size_t n){
    encoder enc=(shape&1)?ordered:zigzag; uint8_t k[24];
    for(size_t i=0;i<n;i++){ be64(k,11); int len=enc(k+8,shape_value(shape,i)); CK(cs_put(t,SHAPE_TREE[shape],(cs_val){k,(size_t)(8+len)},(cs_val){k+8,(size_t)len},0)); }
}
__attribute__((noinline)) size_t run_shape(int shape,size_t ops){
    encoder enc=(shape&1)?ordered:zigzag; uint8_t k[24]; size_t found=0;
    for(size_t i=0;i<ops;i++){
        uint64_t r=xr(); int64_t v = shape<2? (int64_t)(r%(2*N)) : (int64_t)(RANDOM[r%N] + ((i&1)? (1ull<<32) : 0));
        be64(k,11); int len=enc(k+8,v); cs_val val;
        if(cs_get(T,SHAPE_TREE[shape],(cs_val){k,(size_t)(8+len)},&val)==0){ found++; SUM+=*(const uint8_t*)val.data; }
    }
    return found;
}
/* c ++ decimal i at p (no libc call: the loops time the engine, not printf) */
static size_t dec(uint8_t*p,char c,uint64_t i){ uint8_t d[20]; size_t n=0; do{ d[n++]=(uint8_t)('0'+i%10); i/=10; }while(i); p[0]=(uint8_t)c; for(size_t j=0;j<n;j++) p[1+j]=d[n-1-j]; return n+1; }
static size_t map_key(uint8_t*k,uint64_t i){ be64(k,(1ull<<63)+5); return 8+dec(k+8,'k',i); }
static size_t idx_key(uint8_t*k,uint64_t i){ k[0]=1; size_t n=1+dec(k+1,'n',i); k[n]=0; k[n+1]=1; return n+2; }
__attribute__((noinline)) void run_map(size_t ops){ uint8_t k[32]; for(size_t i=0;i<ops;i++){ size_t kl=map_key(k,xr()%N); cs_val vv; CK(cs_get(T,MAP,(cs_val){k,kl},&vv)); SUM+=*(const uint8_t*)vv.data; } }
/* An object tree: object key (u64 BE) -> a 48-byte record, probed by
 * cs_get as a lookup by an Int primary key (a keyed class) and the second
 * step of an indexed lookup. */
__attribute__((noinline)) void run_obj(size_t ops){ uint8_t k[8]; for(size_t i=0;i<ops;i++){ be64(k,xr()%N+1); cs_val vv; CK(cs_get(T,OBJ,(cs_val){k,8},&vv)); SUM+=*(const uint8_t*)vv.data; } }
__attribute__((noinline)) void run_idx(cs_cursor*c,size_t ops){ uint8_t k[32]; for(size_t i=0;i<ops;i++){ cs_val kk={k,idx_key(k,xr()%N)},vv; CK(cs_cursor_get(c,&kk,&vv,CS_SEEK)); SUM+=((const uint8_t*)kk.data)[kk.size-1]; } }
int main(int argc,char**argv){
    size_t n = argc>1? strtoull(argv[1],0,10):1000000;
    size_t ops = argc>2? strtoull(argv[2],0,10):2000000;
    const char *which = argc>3? argv[3]:"set,list";
    cs_env*env; cs_options o; memset(&o,0,sizeof o); o.flags=CS_ENV_IN_MEMORY; o.durability=CS_DURABLE_NO_SYNC;
    CK(cs_env_open("lookup-bench",&o,&env));
    cs_txn*t; cs_tree set,list,map,idx;
    CK(cs_txn_begin(env,0,&t));
    CK(cs_tree_open(t,"set",CS_CREATE,&set));
    CK(cs_tree_open(t,"list",CS_CREATE,&list));
    CK(cs_tree_open(t,"map",CS_CREATE,&map));
    CK(cs_tree_open(t,"idx",CS_CREATE,&idx));
    uint8_t k[32]; uint64_t v=0;
    /* set<Int>: owner id (BE) ++ element's 8 bytes (LE Int: unordered bytes) */
    uint64_t *elems = malloc(n*8);
    for(size_t i=0;i<n;i++) elems[i]=xr();
    if(strstr(which,"set")) for(size_t i=0;i<n;i++){ be64(k,7); memcpy(k+8,&elems[i],8); v=i; CK(cs_put(t,set,(cs_val){k,16},(cs_val){&v,8},0)); }
    /* list: list id ++ length byte ++ 3-byte BE counter */
    if(strstr(which,"list")) for(size_t i=0;i<n;i++){ be64(k,9); k[8]=3; k[9]=(uint8_t)((i+1)>>16); k[10]=(uint8_t)((i+1)>>8); k[11]=(uint8_t)(i+1); v=i; CK(cs_put(t,list,(cs_val){k,12},(cs_val){&v,8},0)); }
    /* map<String, Int>: map id ++ "k<i>", in insertion order k0, k1, ... */
    if(strstr(which,"map")) for(size_t i=0;i<n;i++){ size_t kl=map_key(k,i); uint8_t e[40]; uint32_t ul=(uint32_t)(kl-8); memcpy(e,&ul,4); memcpy(e+4,k+8,ul); size_t el=4+ul; uint64_t x=i*2; do{ e[el++]=(uint8_t)(x|(x>=0x80?0x80:0)); x>>=7; }while(x); CK(cs_put(t,map,(cs_val){k,kl},(cs_val){e,el},0)); }
    /* index on a String property: one entry per object, names n0, n1, ... */
    if(strstr(which,"idx")) for(size_t i=0;i<n;i++){ size_t kl=idx_key(k,i); be64(k+kl,i+1); CK(cs_put(t,idx,(cs_val){k,kl+8},(cs_val){k,0},0)); }
    cs_tree obj=0;
    if(strstr(which,"obj")){ CK(cs_tree_open(t,"obj",CS_CREATE,&obj)); uint8_t rec[48]; memset(rec,7,sizeof rec); for(size_t i=0;i<n;i++){ be64(k,i+1); CK(cs_put(t,obj,(cs_val){k,8},(cs_val){rec,sizeof rec},0)); } }
    RANDOM = malloc(n*8); N=n;
    for(size_t i=0;i<n;i++) RANDOM[i]=xr()>>32;
    for(int shape=0;shape<4;shape++) if(named(which,SHAPES[shape])){
        CK(cs_tree_open(t,SHAPES[shape],CS_CREATE,&SHAPE_TREE[shape]));
        put_shape(t,shape,n);
    }
    CK(cs_txn_commit(t));
    CK(cs_txn_begin(env,CS_TXN_RDONLY,&t));
    CK(cs_tree_open(t,"set",0,&set)); CK(cs_tree_open(t,"list",0,&list)); CK(cs_tree_open(t,"map",0,&map)); CK(cs_tree_open(t,"idx",0,&idx));
    for(int shape=0;shape<4;shape++) if(named(which,SHAPES[shape])) CK(cs_tree_open(t,SHAPES[shape],0,&SHAPE_TREE[shape]));
    if(strstr(which,"obj")) CK(cs_tree_open(t,"obj",0,&obj));
    const char *names[4]={"set","list","map","idx"}; cs_tree trees[4]={set,list,map,idx};
    for(int i=0;i<4;i++){ cs_tree_stat st; if(strstr(which,names[i]) && cs_tree_get_stat(t,trees[i],&st)==0) fprintf(stderr,"%s: %llu entries, depth %u, %llu branch and %llu leaf pages\n",names[i],(unsigned long long)st.entries,st.depth,(unsigned long long)st.branch_pages,(unsigned long long)st.leaf_pages); }
    uint64_t sum=0;
    int reps = argc>4? atoi(argv[4]):3; T=t; OBJ=obj; SET=set; LIST=list; MAP=map; IDX=idx; ELEMS=elems; N=n;
    for(int rep=0;rep<reps;rep++){
    for(int shape=0;shape<4;shape++){
        if(!named(which,SHAPES[shape])) continue;
        double t0=now(), c0=cpu();
        size_t found=run_shape(shape,ops);
        double dt=now()-t0, dc=cpu()-c0;
        printf("set<Int> %s get (%.0f%% hits): %.0f ns/op (cpu %.0f ns)  %.2fM/s\n", SHAPES[shape], 100.0*found/ops, dt/ops*1e9, dc/ops*1e9, ops/dt/1e6);
    }
    if(strstr(which,"set")){
        double t0=now(); C0=cpu();
        run_set(ops);
        double dt=now()-t0; printf("set get (half hits): %.0f ns/op  %.2fM/s  cpu %.0f ns/op\n", dt/ops*1e9, ops/dt/1e6, (cpu()-C0)/ops*1e9);
    }
    if(strstr(which,"list")){
        cs_cursor*c; CK(cs_cursor_open(t,list,&c));
        double t0=now(); C0=cpu();
        run_seek(c,ops);
        double dt=now()-t0; printf("list seek_index: %.0f ns/op  %.2fM/s  cpu %.0f ns/op\n", dt/ops*1e9, ops/dt/1e6, (cpu()-C0)/ops*1e9);
        t0=now(); C0=cpu();
        run_listget(ops);
        dt=now()-t0; printf("list get: %.0f ns/op  %.2fM/s  cpu %.0f ns/op\n", dt/ops*1e9, ops/dt/1e6, (cpu()-C0)/ops*1e9);
        cs_cursor_close(c);
    }
    if(strstr(which,"map")){
        double t0=now(); C0=cpu();
        run_map(ops);
        double dt=now()-t0; printf("map get: %.0f ns/op  %.2fM/s  cpu %.0f ns/op\n", dt/ops*1e9, ops/dt/1e6, (cpu()-C0)/ops*1e9);
    }
    if(strstr(which,"obj")){
        double t0=now(); C0=cpu();
        run_obj(ops);
        double dt=now()-t0; printf("obj get: %.0f ns/op  %.2fM/s  cpu %.0f ns/op\n", dt/ops*1e9, ops/dt/1e6, (cpu()-C0)/ops*1e9);
    }
    if(strstr(which,"idx")){
        cs_cursor*c; CK(cs_cursor_open(t,idx,&c));
        double t0=now(); C0=cpu();
        run_idx(c,ops);
        double dt=now()-t0; printf("idx seek: %.0f ns/op  %.2fM/s  cpu %.0f ns/op\n", dt/ops*1e9, ops/dt/1e6, (cpu()-C0)/ops*1e9);
        cs_cursor_close(c);
    }
    }
    cs_txn_abort(t); cs_env_close(env);
    fprintf(stderr,"sum %llu\n",(unsigned long long)(sum+SUM));
    return 0;
}
