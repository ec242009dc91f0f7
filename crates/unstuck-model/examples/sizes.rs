//! Prints the in-memory size of the model's types (memory budgeting at 150,000 pods).
fn main() {
    use unstuck_model::*;
    println!(
        "Pod {} ObjectMeta {} PodSpec {} PodStatus {} ContainerStatus {} ContainerState {} Condition {} Event {} Container {} Volume {}",
        std::mem::size_of::<Pod>(),
        std::mem::size_of::<ObjectMeta>(),
        std::mem::size_of::<PodSpec>(),
        std::mem::size_of::<PodStatus>(),
        std::mem::size_of::<ContainerStatus>(),
        std::mem::size_of::<ContainerState>(),
        std::mem::size_of::<Condition>(),
        std::mem::size_of::<Event>(),
        std::mem::size_of::<Container>(),
        std::mem::size_of::<Volume>()
    );
}
