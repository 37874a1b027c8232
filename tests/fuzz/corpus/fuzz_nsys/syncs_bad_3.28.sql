CREATE TABLE StringIds (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    value                       TEXT      NOT NULL
);
CREATE TABLE ThreadNames (
    nameId                      INTEGER   NOT NULL,
    priority                    INTEGER,
    globalTid                   INTEGER
);
INSERT INTO ThreadNames VALUES(0,0,8019509726);
CREATE TABLE PROCESSES (
    globalPid                   INTEGER,
    pid                         INTEGER,
    name                        TEXT
);
INSERT INTO PROCESSES VALUES(8019509248,478,'syncs');
CREATE TABLE ANALYSIS_DETAILS (
    globalVid                   INTEGER   NOT NULL,
    duration                    INTEGER   NOT NULL,
    startTime                   INTEGER   NOT NULL,
    stopTime                    INTEGER   NOT NULL
);
INSERT INTO ANALYSIS_DETAILS VALUES(0,712841370,0,712841370);
CREATE TABLE TARGET_INFO_SYSTEM_ENV (
    globalVid                   INTEGER,
    devStateName                TEXT      NOT NULL,
    name                        TEXT      NOT NULL,
    nameEnum                    INTEGER   NOT NULL,
    value                       TEXT      NOT NULL
);
INSERT INTO TARGET_INFO_SYSTEM_ENV VALUES(0,'','Hostname',0,'vm');
CREATE TABLE META_DATA_EXPORT (
    name                        TEXT      NOT NULL,
    value                       TEXT
);
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.28.1');
INSERT INTO META_DATA_EXPORT VALUES('EXPORT_PRODUCT_NAME','kgantt tests/tools/kgt_to_nsys.py: a kgantt trace in the Nsight Systems export layout');
CREATE TABLE TARGET_INFO_CUDA_DEVICE (
    gpuId                       INTEGER,
    cudaId                      INTEGER   NOT NULL,
    pid                         INTEGER   NOT NULL,
    uuid                        TEXT,
    numMultiprocessors          INTEGER
);
INSERT INTO TARGET_INFO_CUDA_DEVICE VALUES(0,0,478,'c59f6d8c-bc09-e39c-ac4e-a0e3c0429452',132);
CREATE TABLE TARGET_INFO_CUDA_STREAM (
    streamId                    INTEGER   NOT NULL,
    hwId                        INTEGER   NOT NULL,
    vmId                        INTEGER   NOT NULL,
    processId                   INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    priority                    INTEGER   NOT NULL,
    flag                        INTEGER   NOT NULL
);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(6,0,0,478,1,0,1);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(7,0,0,478,1,0,3);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(8,0,0,478,1,0,2);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(9,0,0,478,1,0,2);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(10,0,0,478,1,0,2);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(11,0,0,478,1,0,2);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(12,0,0,478,1,-5,1);
INSERT INTO TARGET_INFO_CUDA_STREAM VALUES(13,0,0,478,1,0,2);
CREATE TABLE TARGET_INFO_GPU (
    vmId                        INTEGER   NOT NULL,
    id                          INTEGER   NOT NULL,
    name                        TEXT,
    busLocation                 TEXT,
    isDiscrete                  INTEGER,
    l2CacheSize                 INTEGER,
    totalMemory                 INTEGER,
    memoryBandwidth             INTEGER,
    clockRate                   INTEGER,
    smCount                     INTEGER,
    pwGpuId                     INTEGER,
    uuid                        TEXT,
    luid                        INTEGER,
    chipName                    TEXT,
    cuDevice                    INTEGER,
    ctxswDevPath                TEXT,
    ctrlDevPath                 TEXT,
    revision                    INTEGER,
    nodeMask                    INTEGER,
    constantMemory              INTEGER,
    maxIPC                      INTEGER,
    maxRegistersPerBlock        INTEGER,
    maxShmemPerBlock            INTEGER,
    maxShmemPerBlockOptin       INTEGER,
    maxShmemPerSm               INTEGER,
    maxRegistersPerSm           INTEGER,
    threadsPerWarp              INTEGER,
    asyncEngines                INTEGER,
    maxWarpsPerSm               INTEGER,
    maxBlocksPerSm              INTEGER,
    maxThreadsPerBlock          INTEGER,
    maxBlockDimX                INTEGER,
    maxBlockDimY                INTEGER,
    maxBlockDimZ                INTEGER,
    maxGridDimX                 INTEGER,
    maxGridDimY                 INTEGER,
    maxGridDimZ                 INTEGER,
    computeMajor                INTEGER,
    computeMinor                INTEGER,
    smMajor                     INTEGER,
    smMinor                     INTEGER,
    numaNodeId                  INTEGER
);
INSERT INTO TARGET_INFO_GPU VALUES(0,0,'NVIDIA H200','',1,62914560,150109880320,4814304000000,1980000000,132,NULL,'c59f6d8c-bc09-e39c-ac4e-a0e3c0429452',NULL,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,65536,49152,NULL,233472,65536,32,3,64,32,1024,NULL,NULL,NULL,NULL,NULL,NULL,9,0,9,0,NULL);
CREATE TABLE TARGET_INFO_CUDA_CONTEXT_INFO (
    nullStreamId                INTEGER   NOT NULL,
    hwId                        INTEGER   NOT NULL,
    vmId                        INTEGER   NOT NULL,
    processId                   INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    parentContextId             INTEGER,
    isGreenContext              INTEGER,
    numMultiprocessors          INTEGER,
    numTpcs                     INTEGER,
    tpcMask                     TEXT,
    workqueueResourceId         INTEGER,
    workqueueConcurrencyLimit   INTEGER,
    workqueueSharingScope       INTEGER,
    workqueueChannelCount       INTEGER,
    workqueueChannelIds         TEXT
);
INSERT INTO TARGET_INFO_CUDA_CONTEXT_INFO VALUES(7,0,0,478,0,1,NULL,0,NULL,NULL,NULL,NULL,NULL,NULL,NULL,NULL);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE ENUM_CUDA_MEM_KIND (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE ENUM_CUPTI_SYNC_TYPE (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE ENUM_CUPTI_STREAM_TYPE (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE ENUM_NSYS_EVENT_TYPE (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE ENUM_NSYS_EVENT_CLASS (
    id                          INTEGER   NOT NULL   PRIMARY KEY,
    name                        TEXT,
    label                       TEXT
);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    greenContextId              INTEGER,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    demangledName               INTEGER   NOT NULL,
    shortName                   INTEGER   NOT NULL,
    mangledName                 INTEGER,
    launchType                  INTEGER,
    cacheConfig                 INTEGER,
    registersPerThread          INTEGER   NOT NULL,
    gridX                       INTEGER   NOT NULL,
    gridY                       INTEGER   NOT NULL,
    gridZ                       INTEGER   NOT NULL,
    blockX                      INTEGER   NOT NULL,
    blockY                      INTEGER   NOT NULL,
    blockZ                      INTEGER   NOT NULL,
    staticSharedMemory          INTEGER   NOT NULL,
    dynamicSharedMemory         INTEGER   NOT NULL,
    localMemoryPerThread        INTEGER   NOT NULL,
    localMemoryTotal            INTEGER   NOT NULL,
    gridId                      INTEGER   NOT NULL,
    sharedMemoryExecuted        INTEGER,
    graphNodeId                 INTEGER,
    sharedMemoryLimitConfig     INTEGER,
    qmdBulkReleaseDone          INTEGER,
    qmdPreexitDone              INTEGER,
    qmdLastCtaDone              INTEGER,
    graphId                     INTEGER,
    clusterX                    INTEGER,
    clusterY                    INTEGER,
    clusterZ                    INTEGER,
    clusterSchedulingPolicy     INTEGER,
    maxPotentialClusterSize     INTEGER,
    maxActiveClusters           INTEGER,
    sharedMemoryRequestedPercentage INTEGER,
    tensorSizeMinusOneElements  TEXT      NOT NULL
);
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(400673812,400873970,0,1,NULL,13,129,8019509248,1,2,3,0,0,16,264,1,1,256,1,1,0,0,0,155713536,2,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(400875634,401075535,0,1,NULL,13,132,8019509248,1,2,3,0,0,16,264,1,1,256,1,1,0,0,0,155713536,3,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(401077071,401276941,0,1,NULL,13,135,8019509248,1,2,3,0,0,16,264,1,1,256,1,1,0,0,0,155713536,4,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(401278733,401478602,0,1,NULL,13,138,8019509248,1,2,3,0,0,16,264,1,1,256,1,1,0,0,0,155713536,5,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(401482954,401489674,0,1,NULL,13,142,8019509248,4,5,6,0,0,30,1,1,1,256,1,1,1024,0,0,155713536,6,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(401889221,402089378,0,1,NULL,13,147,8019509248,1,2,3,0,0,16,264,1,1,256,1,1,0,0,0,155713536,7,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(402090850,402290720,0,1,NULL,13,150,8019509248,1,2,3,0,0,16,264,1,1,256,1,1,0,0,0,155713536,8,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES(402292288,402492157,0,1,NULL,13,153,8019509248,1,2,3,0,0,16,264,1,1,256,1,1,0,0,0,155713536,9,32768,NULL,NULL,NULL,NULL,NULL,NULL,0,0,0,NULL,NULL,NULL,NULL,'');
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    greenContextId              INTEGER,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    bytes                       INTEGER   NOT NULL,
    copyKind                    INTEGER   NOT NULL,
    deprecatedSrcId             INTEGER,
    srcKind                     INTEGER,
    dstKind                     INTEGER,
    srcDeviceId                 INTEGER,
    srcContextId                INTEGER,
    dstDeviceId                 INTEGER,
    dstContextId                INTEGER,
    migrationCause              INTEGER,
    graphNodeId                 INTEGER,
    virtualAddress              INTEGER,
    copyCount                   INTEGER
);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(401496490,401498282,0,1,NULL,13,144,8019509248,4,2,NULL,2,1,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(402709531,402711003,0,1,NULL,13,161,8019509248,4,2,NULL,2,1,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(403847180,403848652,0,1,NULL,13,178,8019509248,4,2,NULL,2,1,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(404993022,404994494,0,1,NULL,13,195,8019509248,4,2,NULL,2,1,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(406136815,406138287,0,1,NULL,13,212,8019509248,4,2,NULL,2,1,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(407272416,407273889,0,1,NULL,13,229,8019509248,4,2,NULL,2,1,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(408409042,408410514,0,1,NULL,13,246,8019509248,4,2,NULL,2,1,0,1,0,1,NULL,NULL,NULL,1);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES(409547716,409549188,0,1,NULL,13,263,8019509248,4,2,NULL,2,1,0,1,0,1,NULL,NULL,NULL,1);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    greenContextId              INTEGER,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    value                       INTEGER   NOT NULL,
    bytes                       INTEGER   NOT NULL,
    graphNodeId                 INTEGER,
    memKind                     INTEGER
);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(400152379,400153467,0,1,NULL,13,123,8019509248,0,270336,NULL,2);
INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES(400171035,400171835,0,1,NULL,13,124,8019509248,0,4,NULL,2);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    eventClass                  INTEGER   NOT NULL,
    globalTid                   INTEGER,
    correlationId               INTEGER,
    nameId                      INTEGER   NOT NULL,
    returnValue                 INTEGER   NOT NULL,
    callchainId                 INTEGER
);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(246304141,246305673,1,8019509726,1,7,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(246381518,246382136,1,8019509726,2,8,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(246383018,246392497,1,8019509726,3,9,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(246398622,246407822,1,8019509726,4,10,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(246409301,246409986,1,8019509726,5,11,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(246450193,246450501,1,8019509726,94,12,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(246545937,397845504,0,8019509726,118,13,0,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES(397948443,398034193,0,8019509726,119,25,0,1);
CREATE TABLE CUDA_CALLCHAINS (
    id                          INTEGER   NOT NULL,
    symbol                      INTEGER   NOT NULL,
    module                      INTEGER   NOT NULL,
    unresolved                  INTEGER,
    originalIP                  INTEGER,
    stackDepth                  INTEGER   NOT NULL,

    PRIMARY KEY (id, stackDepth)
);
INSERT INTO CUDA_CALLCHAINS VALUES(1,14,15,1,5025862,0);
INSERT INTO CUDA_CALLCHAINS VALUES(1,16,17,NULL,330828,1);
INSERT INTO CUDA_CALLCHAINS VALUES(1,18,19,NULL,8998,2);
INSERT INTO CUDA_CALLCHAINS VALUES(1,20,19,NULL,8998,3);
INSERT INTO CUDA_CALLCHAINS VALUES(1,21,22,1,172490,4);
INSERT INTO CUDA_CALLCHAINS VALUES(1,23,22,NULL,172683,5);
INSERT INTO CUDA_CALLCHAINS VALUES(1,24,19,NULL,11457,6);
INSERT INTO CUDA_CALLCHAINS VALUES(2,14,15,1,5025862,0);
CREATE TABLE CUPTI_ACTIVITY_KIND_SYNCHRONIZATION (
    start                       INTEGER   NOT NULL,
    end                         INTEGER   NOT NULL,
    deviceId                    INTEGER   NOT NULL,
    contextId                   INTEGER   NOT NULL,
    greenContextId              INTEGER,
    streamId                    INTEGER   NOT NULL,
    correlationId               INTEGER,
    globalPid                   INTEGER,
    deprecatedSyncType          INTEGER,
    syncType                    INTEGER   NOT NULL,
    eventId                     INTEGER   NOT NULL,
    eventSyncId                 INTEGER
);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(400180909,400187526,0,1,NULL,13,125,8019509248,NULL,3,4294967295,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(400773838,401503751,0,1,NULL,13,145,8019509248,NULL,3,4294967295,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(401994537,402716383,0,1,NULL,13,162,8019509248,NULL,3,4294967295,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(403098939,403853608,0,1,NULL,13,179,8019509248,NULL,3,4294967295,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(404236526,404999120,0,1,NULL,13,196,8019509248,NULL,3,4294967295,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(405380683,406142873,0,1,NULL,13,213,8019509248,NULL,3,4294967295,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(406515005,407278084,0,1,NULL,13,230,8019509248,NULL,3,4294967295,NULL);
INSERT INTO CUPTI_ACTIVITY_KIND_SYNCHRONIZATION VALUES(407668322,408415263,0,1,NULL,13,247,8019509248,NULL,3,4294967295,NULL);
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(0,'CUDA_MEMCPY_KIND_UNKNOWN','Unknown');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(1,'CUDA_MEMCPY_KIND_HTOD','Host-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(2,'CUDA_MEMCPY_KIND_DTOH','Device-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(3,'CUDA_MEMCPY_KIND_HTOA','Host-to-Array');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(4,'CUDA_MEMCPY_KIND_ATOH','Array-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(5,'CUDA_MEMCPY_KIND_ATOA','Array-to-Array');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(6,'CUDA_MEMCPY_KIND_ATOD','Array-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(7,'CUDA_MEMCPY_KIND_DTOA','Device-to-Array');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(8,'CUDA_MEMCPY_KIND_DTOD','Device-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(9,'CUDA_MEMCPY_KIND_HTOH','Host-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(10,'CUDA_MEMCPY_KIND_PTOP','Peer-to-Peer');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(11,'CUDA_MEMCPY_KIND_UVM_HTOD','Unified Host-to-Device');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(12,'CUDA_MEMCPY_KIND_UVM_DTOH','Unified Device-to-Host');
INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES(13,'CUDA_MEMCPY_KIND_UVM_DTOD','Unified Device-to-Device');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(0,'CUDA_MEMOPR_MEMORY_KIND_PAGEABLE','Pageable');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(1,'CUDA_MEMOPR_MEMORY_KIND_PINNED','Pinned');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(2,'CUDA_MEMOPR_MEMORY_KIND_DEVICE','Device');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(3,'CUDA_MEMOPR_MEMORY_KIND_ARRAY','Array');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(4,'CUDA_MEMOPR_MEMORY_KIND_MANAGED','Managed');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(5,'CUDA_MEMOPR_MEMORY_KIND_DEVICE_STATIC','Device Static');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(6,'CUDA_MEMOPR_MEMORY_KIND_MANAGED_STATIC','Managed Static');
INSERT INTO ENUM_CUDA_MEM_KIND VALUES(7,'CUDA_MEMOPR_MEMORY_KIND_UNKNOWN','Unknown');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(0,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_UNKNOWN','Unknown');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(1,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE','Event sync');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(2,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT','Stream wait sync');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(3,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE','Stream sync');
INSERT INTO ENUM_CUPTI_SYNC_TYPE VALUES(4,'CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE','Context sync');
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES(0,'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_UNKNOWN','Unknown');
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES(1,'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_DEFAULT','Default');
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES(2,'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NON_BLOCKING','Non-blocking');
INSERT INTO ENUM_CUPTI_STREAM_TYPE VALUES(3,'CUPTI_ACTIVITY_STREAM_CREATE_FLAG_NULL','Null');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(33,'NvtxCategory','NvtxCategory');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(34,'NvtxMark','NvtxMark');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(39,'NvtxThread','NvtxThread');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(59,'NvtxPushPopRange','NvtxPushPopRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(60,'NvtxStartEndRange','NvtxStartEndRange');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(75,'NvtxDomainCreate','NvtxDomainCreate');
INSERT INTO ENUM_NSYS_EVENT_TYPE VALUES(76,'NvtxDomainDestroy','NvtxDomainDestroy');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(0,'TRACE_PROCESS_EVENT_CUDA_RUNTIME','CUDA runtime');
INSERT INTO ENUM_NSYS_EVENT_CLASS VALUES(1,'TRACE_PROCESS_EVENT_CUDA_DRIVER','CUDA driver');
INSERT INTO StringIds VALUES(0,'syncs');
INSERT INTO StringIds VALUES(1,'syncs_step(float*, int)');
INSERT INTO StringIds VALUES(2,'syncs_step');
INSERT INTO StringIds VALUES(3,'_Z10syncs_stepPfi');
INSERT INTO StringIds VALUES(4,'syncs_loss(float const*, float*, float*)');
INSERT INTO StringIds VALUES(5,'syncs_loss');
INSERT INTO StringIds VALUES(6,'_Z10syncs_lossPKfPfS1_');
INSERT INTO StringIds VALUES(7,'cuModuleGetLoadingMode');
INSERT INTO StringIds VALUES(8,'cuDeviceGetCount');
INSERT INTO StringIds VALUES(9,'cuDeviceGet');
INSERT INTO StringIds VALUES(10,'cuDeviceGetName');
INSERT INTO StringIds VALUES(11,'cuDeviceTotalMem_v2');
INSERT INTO StringIds VALUES(12,'cuDeviceGetUuid');
INSERT INTO StringIds VALUES(13,'cudaStreamCreateWithFlags_v5000');
INSERT INTO StringIds VALUES(14,'0x4cb046');
INSERT INTO StringIds VALUES(15,'/usr/local/nvidia/lib64/libcuda.so.1');
INSERT INTO StringIds VALUES(16,'cudaMalloc');
INSERT INTO StringIds VALUES(17,'/usr/local/cuda/lib64/libcudart.so.13');
INSERT INTO StringIds VALUES(18,'cudaMalloc<float>');
INSERT INTO StringIds VALUES(19,'/work/main/build/examples/syncs');
INSERT INTO StringIds VALUES(20,'main');
INSERT INTO StringIds VALUES(21,'0x2a1ca');
INSERT INTO StringIds VALUES(22,'/lib/x86_64-linux-gnu/libc.so.6');
INSERT INTO StringIds VALUES(23,'__libc_start_main');
INSERT INTO StringIds VALUES(24,'_start');
INSERT INTO StringIds VALUES(25,'cudaMalloc_v3020');
INSERT INTO StringIds VALUES(26,'cudaHostAlloc');
INSERT INTO StringIds VALUES(27,'cudaMallocHost');
INSERT INTO StringIds VALUES(28,'cudaMallocHost<float>');
INSERT INTO StringIds VALUES(29,'cudaHostAlloc_v3020');
INSERT INTO StringIds VALUES(30,'cudaMemsetAsync');
INSERT INTO StringIds VALUES(31,'cudaMemsetAsync_v3020');
INSERT INTO StringIds VALUES(32,'cudaStreamSynchronize');
INSERT INTO StringIds VALUES(33,'cudaStreamSynchronize_v3020');
INSERT INTO StringIds VALUES(34,'cuLibraryLoadData');
INSERT INTO StringIds VALUES(35,'cuLibraryGetKernel');
INSERT INTO StringIds VALUES(36,'cudaLaunchKernel');
INSERT INTO StringIds VALUES(37,'__cudaLaunchKernel_helper');
INSERT INTO StringIds VALUES(38,'__device_stub__Z10syncs_stepPfi(float*, int)');
INSERT INTO StringIds VALUES(39,'train');
INSERT INTO StringIds VALUES(40,'cudaLaunchKernel_v7000');
INSERT INTO StringIds VALUES(41,'__device_stub__Z10syncs_lossPKfPfS1_(float const*, float*, float*)');
INSERT INTO StringIds VALUES(42,'cudaMemcpyAsync');
INSERT INTO StringIds VALUES(43,'log_progress');
INSERT INTO StringIds VALUES(44,'cudaMemcpyAsync_v3020');
INSERT INTO StringIds VALUES(45,'cudaDeviceSynchronize');
INSERT INTO StringIds VALUES(46,'cudaDeviceSynchronize_v3020');
INSERT INTO StringIds VALUES(47,'cudaFreeHost');
INSERT INTO StringIds VALUES(48,'cudaFreeHost_v3020');
INSERT INTO StringIds VALUES(49,'cudaFree');
INSERT INTO StringIds VALUES(50,'cudaFree_v3020');
INSERT INTO StringIds VALUES(51,'cudaStreamDestroy_v5050');
INSERT INTO StringIds VALUES(52,'0x33a6c7');
INSERT INTO StringIds VALUES(53,'cuCtxSynchronize');
INSERT INTO StringIds VALUES(54,'sync_current_context');
INSERT INTO StringIds VALUES(55,'/work/main/build/libkgantt-inject.so');
INSERT INTO StringIds VALUES(56,'at_exit');
INSERT INTO StringIds VALUES(57,'0x47a76');
INSERT INTO StringIds VALUES(58,'exit');
INSERT INTO StringIds VALUES(59,'0x2a1d1');
