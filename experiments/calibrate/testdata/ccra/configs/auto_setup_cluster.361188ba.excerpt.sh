# Excerpt of ccra script/auto_setup_cluster.sh at commit 361188ba (2017-02-07); see ../SOURCE.md for the line ranges.
	genJavaFileDst="/home/tanle/hadoop/conf/GenerateProfile.java"
else
	workloadFile="/users/tanle/hadoop/conf/simple.txt"
	profilePath="/users/tanle/hadoop/conf/"
	simLogPath="/users/tanle/SWIM/scriptsTest/workGenLogs/"
	genJavaFileDst="/users/tanle/hadoop/conf/GenerateProfile.java"
fi

yarnVcores=32
if $isLocalhost
then
	yarnVcores=13
fi
vmemRatio=4
#yarnNodeMem=131072 # 128 GB
#yarnNodeMem=65536 # 64 GB
yarnNodeMem=$(($yarnVcores*1024*2)) # 2 times of number of vcores
#yarnNodeMem=32768 # 32 GB

yarnMaxMem=$yarnNodeMem # for each container

	
echo "METHOD: $METHOD"

if [ "$METHOD" == "$BPF" ];
then
        shedulingPolicy="bpf"; weight=1
elif [ "$METHOD" == "$N_BPF" ];
then
	shedulingPolicy="n-bpf"; weight=1
elif [ "$METHOD" == "$DRF" ];
then
	shedulingPolicy="drf"; weight=1
elif [ "$METHOD" == "$Strict" ];
then
	shedulingPolicy="drf"; weight=999999
elif [ "$METHOD" == "$Fair" ];
then
	shedulingPolicy="fair"; weight=1
elif [ "$METHOD" == "$DRFW" ];
then
	shedulingPolicy="drf"; weight=4
else
	echo "[ERROR] This METHOD $METHOD does not exist."; exit;
	shedulingPolicy="drf";
fi
			echo "[INFO] Configure Yarn at $1 step 1 yarn-site.xml"
			$SSH_CMD $username@$1 "echo '<?xml version=\"1.0\"?>
<configuration>

  <property>
    <name>tez.simulation.enabled</name>
    <value>$enableSim</value>
  </property>

  <property>
    <name>yarn.resourcemanager.hostname</name>
    <value>$hostname</value>
  </property>

  <property>
    <name>yarn.resourcemanager.scheduler.class</name>
    <value>$scheduler</value>
  </property>

  <property>
    <name>yarn.scheduler.fair.allocation.file</name>
    <value>$schedulerFile</value>
  </property>  

  <property>
    <name>yarn.scheduler.fair.update-interval-ms</name>
    <value>100</value>
  </property>

<!-- preemption & spark -->

  <property>
    <name>yarn.scheduler.fair.preemption</name>
    <value>$enablePreemption</value>
  </property>

  <property>
    <name>yarn.scheduler.fair.preemptionInterval</name>
    <value>100</value>
  </property>

  <property>
    <name>yarn.scheduler.fair.waitTimeBeforeKill</name>
    <value>100</value>
  </property>
  
  <property>
    <name>yarn.scheduler.fair.preemption.cluster-utilization-threshold</name>
    <value>0.8</value>
  </property>

  <property>
    <name>yarn.nodemanager.aux-services</name>
    <value>$shuffleStr</value>
  </property>

  <property>
    <name>yarn.nodemanager.aux-services.mapreduce.shuffle.class</name>
    <value>org.apache.hadoop.mapred.ShuffleHandler</value>
  </property>

  <property>
    <name>yarn.nodemanager.aux-services.spark_shuffle.class</name>
    <value>org.apache.spark.network.yarn.YarnShuffleService</value>
  </property>

  <property>
    <name>yarn.nodemanager.log-dirs</name>
    <value>$yarnAppLogs</value>
  </property>

  <property>
    <name>yarn.scheduler.minimum-allocation-mb</name>
    <value>1024</value>
  </property>
	
  <property>
    <name>yarn.scheduler.maximum-allocation-mb</name>
    <value>$yarnMaxMem</value>
  </property>

  <property>
    <name>yarn.scheduler.maximum-allocation-vcores</name>
    <value>$yarnVcores</value>
  </property>

  <property>
    <name>yarn.nodemanager.resource.cpu-vcores</name>
    <value>$yarnVcores</value>
  </property>

  <property>
    <name>yarn.nodemanager.resource.memory-mb</name>
    <value>$yarnNodeMem</value>
  </property>

  <property>
    <name>yarn.nodemanager.vmem-check-enabled</name>
    <value>false</value>
  </property>

  <property>
    <name>yarn.cmpl.path</name>
    <value>$simLogPath</value>
  </property>

  <property>
    <name>yarn.container.time.log.enable</name>
    <value>$enableContainerLog</value>
  </property>	
</configuration>' > $hadoopFolder/$configFolder/yarn-site.xml"
#strBQ=""
#for bId in seq(1,$numBatchQ); do
#	$SSH_CMD $username@$server " echo Hello $server " &
#done
			$SSH_CMD $username@$1 "echo  '<?xml version=\"1.0\"?>
<allocations>

<defaultQueueSchedulingPolicy>$shedulingPolicy</defaultQueueSchedulingPolicy>
<defaultMinSharePreemptionTimeout>1</defaultMinSharePreemptionTimeout>
<defaultFairSharePreemptionTimeout>1</defaultFairSharePreemptionTimeout>
<defaultFairSharePreemptionThreshold>1.0</defaultFairSharePreemptionThreshold>

<queue name=\"bursty0\">	
	<minReq>2621440 mb, 1280 vcores</minReq> 
	<speedDuration>$STAGE01</speedDuration>
	<period>150000</period>
	<startTime>-1</startTime>
	<weight>$weight</weight>
	<allowPreemptionFrom>$enablePreemption</allowPreemptionFrom>
	<schedulingPolicy>fifo</schedulingPolicy>
</queue>
<queue name=\"bursty1\">	
	<minReq>2621440 mb, 1280 vcores</minReq> 
	<speedDuration>$STAGE01</speedDuration>
	<period>110000</period>
	<startTime>-1</startTime>
	<weight>$weight</weight>
	<allowPreemptionFrom>$enablePreemption</allowPreemptionFrom>
	<schedulingPolicy>fifo</schedulingPolicy>
</queue>
<queue name=\"bursty2\">	
	<minReq>2621440 mb, 1280 vcores</minReq> 
	<speedDuration>$STAGE01</speedDuration>
	<period>60000</period>
	<startTime>-1</startTime>
	<weight>$weight</weight>
	<allowPreemptionFrom>$enablePreemption</allowPreemptionFrom>
	<schedulingPolicy>fifo</schedulingPolicy>
</queue>
<queue name=\"batch0\">
	<weight>1</weight>	
	<allowPreemptionFrom>$enablePreemption</allowPreemptionFrom>
	<schedulingPolicy>fifo</schedulingPolicy>
</queue>

<queue name=\"batch1\">
	<weight>1</weight>
	<allowPreemptionFrom>$enablePreemption</allowPreemptionFrom>
	<schedulingPolicy>fifo</schedulingPolicy>
</queue>
<queue name=\"batch2\">
	<weight>1</weight>
	<allowPreemptionFrom>$enablePreemption</allowPreemptionFrom>	
	<schedulingPolicy>fifo</schedulingPolicy>
</queue>
<queue name=\"batch3\">
	<weight>1</weight>
	<allowPreemptionFrom>$enablePreemption</allowPreemptionFrom>	
	<schedulingPolicy>fifo</schedulingPolicy>
</queue>
<queue name=\"batch4\">
	<weight>1</weight>
	<allowPreemptionFrom>$enablePreemption</allowPreemptionFrom>	
	<schedulingPolicy>fifo</schedulingPolicy>
</queue>
<queue name=\"batch5\">
	<weight>1</weight>
	<allowPreemptionFrom>$enablePreemption</allowPreemptionFrom>	
	<schedulingPolicy>fifo</schedulingPolicy>
</queue>
<queue name=\"batch6\">
	<weight>1</weight>
	<allowPreemptionFrom>$enablePreemption</allowPreemptionFrom>	
	<schedulingPolicy>fifo</schedulingPolicy>
</queue>
<queue name=\"batch7\">
	<weight>1</weight>
	<allowPreemptionFrom>$enablePreemption</allowPreemptionFrom>	
	<schedulingPolicy>fifo</schedulingPolicy>
</queue> 
</allocations>' > $fairSchedulerFile"
		$SSH_CMD $username@$1 "mkdir $TEZ_CONF_DIR"
		$SSH_CMD $username@$1 "echo '<?xml version=\"1.0\"?>
		<configuration>
			<property>
			     <name>tez.am.container.reuse.enabled</name>
			     <value>false</value>
			</property>
			<property>
			     <name>tez.dag.profile.enable</name>
			     <value>true</value>
			</property>
			<property>
			     <name>tez.workload.trace</name>
			     <value>$workloadFile</value>
			</property>
			<property>
			     <name>tez.dag.profile.path</name>
			     <value>$profilePath</value>
			</property>
			<property>
			     <name>tez.simulation.log.enable</name>
			     <value>true</value>
			</property>
			<property>
			     <name>tez.simulation.log.path</name>
			     <value>$simLogPath</value>
			</property>
			<property>
			     <name>tez.queue.name</name>
			     <value>batch0</value>
			</property>
		  	<property>
			     <name>tez.lib.uris</name>
			     <value>hdfs://$masterNode:9000//apps/tez/tez-0.8.4.tar.gz</value>
			</property>
			<property>
			  <description>URL for where the Tez UI is hosted</description>
			  <name>tez.tez-ui.history-url.base</name>
			  <value>http://$hostname:9999/tez-ui/</value>
			</property>
			<property>
			     <name>tez.simulation.enabled</name>
			     <value>$enableSim</value>
			</property>
			<property>
			     <name>tez.node.capacity.vcores</name>
			     <value>$yarnVcores</value>
			</property>
			<property>
			     <name>tez.node.capacity.mem</name>
			     <value>$yarnNodeMem</value>
			</property>
			<property>
			     <name>tez.resource.scaledown</name>
			     <value>$scaleDown</value>
			</property>
			<property>
			     <name>tez.resource.singlenode</name>
			     <value>$isLocalhost</value>
			</property>			
			<property>
			     <name>tez.am.preemption.percentage</name>
			     <value>0</value>
			</property>
			<property>
			     <name>tez.am.preemption.max.wait-time-ms</name>
			     <value>100</value>
			</property>
			<property>
			     <name>tez.am.preemption.heartbeats-between-preemptions</name>
			     <value>1</value>
			</property>

			<property>
			     <name>tez.container.log.enable</name>
			     <value>$enableContainerLog</value>
			</property>
		</configuration>' > $hadoopFolder/$tezConfigFolder/tez-site.xml"
